/**
 * The corpus JSONL form (`fixtures/corpus`, see its MANIFEST.md): one message per line,
 * `{role, content, tool_calls?: [{id, name, arguments}], tool_call_id?, reasoning?}`.
 *
 * Mapping:
 * - leading `system` lines → `transcript.system`; a later `system` line → a user message with
 *   `meta.kind = 'system_note'`, written back as a `system` line;
 * - `reasoning` → a reasoning part before the text; an empty `content` → no text part;
 * - a `tool` line → a `tool` message whose result takes its tool name from the matching call
 *   (nearest preceding unanswered call with that id: ids are reused in the corpus).
 *
 * What the form cannot hold is dropped when writing: media, `isError`, reasoning signatures and redacted
 * reasoning, usage and meta other than `system_note`. Several text (or reasoning) parts are joined with "\n".
 */

import { z } from 'zod';
import { InvalidInputError } from '../core/errors/index.ts';
import type { Message, Part, Transcript } from '../core/message.ts';
import { finishTranscript, type MessageDraft } from './finish-transcript.ts';
import { readJsonl } from './read-jsonl.ts';
import { type SourceItem, validateItem } from './source-item.ts';

const corpusToolCall = z.strictObject({ id: z.string(), name: z.string(), arguments: z.string() });

export const corpusMessageSchema = z.discriminatedUnion('role', [
  z.strictObject({ role: z.literal('system'), content: z.string() }),
  z.strictObject({ role: z.literal('user'), content: z.string() }),
  z.strictObject({
    role: z.literal('assistant'),
    content: z.string(),
    tool_calls: z.array(corpusToolCall).optional(),
    reasoning: z.string().optional(),
  }),
  z.strictObject({ role: z.literal('tool'), content: z.string(), tool_call_id: z.string() }),
]);

export type CorpusMessage = z.output<typeof corpusMessageSchema>;

/** Parses corpus JSONL text. `file` is only used to name the file in errors. */
export function parseCorpusJsonl(text: string, file?: string): Transcript {
  return corpusItemsToTranscript(readJsonl(text, file), file);
}

export function corpusItemsToTranscript(items: readonly SourceItem[], file?: string): Transcript {
  if (items.length === 0) throw new InvalidInputError('no messages', file !== undefined ? { file } : {});
  const system: string[] = [];
  const drafts: MessageDraft[] = [];
  for (const item of items) {
    const message = validateItem(corpusMessageSchema, item, file);
    switch (message.role) {
      case 'system':
        if (drafts.length === 0) system.push(message.content);
        else drafts.push({ role: 'user', parts: textParts(message.content), meta: { kind: 'system_note' } });
        break;
      case 'user':
        drafts.push({ role: 'user', parts: textParts(message.content) });
        break;
      case 'assistant': {
        const parts: Part[] = [];
        if (message.reasoning !== undefined) parts.push({ type: 'reasoning', text: message.reasoning });
        parts.push(...textParts(message.content));
        for (const call of message.tool_calls ?? []) {
          parts.push({ type: 'tool-call', callId: call.id, name: call.name, args: call.arguments });
        }
        drafts.push({ role: 'assistant', parts });
        break;
      }
      case 'tool':
        drafts.push({
          role: 'tool',
          parts: [
            {
              type: 'tool-result',
              callId: message.tool_call_id,
              name: '',
              content: message.content,
              isError: false,
            },
          ],
        });
        break;
    }
  }
  return finishTranscript(system, drafts);
}

function textParts(content: string): Part[] {
  return content === '' ? [] : [{ type: 'text', text: content }];
}

/** Writes a transcript as corpus JSONL (one line per message, trailing newline). */
export function toCorpusJsonl(transcript: Transcript): string {
  const lines: string[] = [];
  for (const content of transcript.system) lines.push(JSON.stringify({ role: 'system', content }));
  for (const message of transcript.messages) lines.push(JSON.stringify(toCorpusMessage(message)));
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

export function toCorpusMessage(message: Message): CorpusMessage {
  const content = joined(message.parts, 'text');
  switch (message.role) {
    case 'user':
      return { role: message.meta.kind === 'system_note' ? 'system' : 'user', content };
    case 'tool': {
      const result = message.parts.find((part) => part.type === 'tool-result');
      return { role: 'tool', content: result?.content ?? content, tool_call_id: result?.callId ?? '' };
    }
    case 'assistant': {
      const calls = message.parts.flatMap((part) =>
        part.type === 'tool-call' ? [{ id: part.callId, name: part.name, arguments: part.args }] : [],
      );
      const hasReasoning = message.parts.some(
        (part) => part.type === 'reasoning' && part.redactedData === undefined,
      );
      return {
        role: 'assistant',
        content,
        ...(calls.length > 0 && { tool_calls: calls }),
        ...(hasReasoning && { reasoning: joined(message.parts, 'reasoning') }),
      };
    }
  }
}

function joined(parts: readonly Part[], type: 'text' | 'reasoning'): string {
  const texts: string[] = [];
  for (const part of parts) {
    if (part.type === type && !(part.type === 'reasoning' && part.redactedData !== undefined))
      texts.push(part.text);
  }
  return texts.join('\n');
}
