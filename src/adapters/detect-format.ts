/**
 * Which message format a transcript file is in, and parsing it accordingly. Pure: text in, transcript
 * out; reading files is load-transcript.ts's job.
 *
 * Accepted layouts: corpus JSONL; OpenAI chat as a JSON array, `{messages: [...]}` or JSONL; Anthropic as
 * `{system?, messages: [...]}` or JSONL. The format is decided by the first message that tells them apart
 * (OpenAI `tool_calls[].function`, `developer`/`function` roles, null content, OpenAI part types; corpus
 * `tool_calls[].name`; Anthropic block types, a top-level `system`). Messages that fit several formats
 * (plain string content, no tool calls) parse the same in all of them; the fallback is corpus for JSONL
 * and OpenAI chat for JSON.
 */
import { InvalidInputError } from '../core/errors/index.ts';
import type { Transcript } from '../core/message.ts';
import { anthropicItemsToTranscript } from './anthropic-messages.ts';
import { anthropicSystemSchema } from './anthropic-messages-schema.ts';
import { corpusItemsToTranscript } from './corpus.ts';
import { openAIChatItemsToTranscript } from './openai-chat.ts';
import { readJson, readJsonl } from './read-jsonl.ts';
import { type SourceItem, validateItem } from './source-item.ts';

export type TranscriptFormat = 'corpus' | 'openai-chat' | 'anthropic-messages';

export const TRANSCRIPT_FORMATS: readonly TranscriptFormat[] = [
  'corpus',
  'openai-chat',
  'anthropic-messages',
];

export interface ParsedTranscript {
  format: TranscriptFormat;
  transcript: Transcript;
}

const ANTHROPIC_ONLY_BLOCKS = new Set([
  'tool_use',
  'tool_result',
  'thinking',
  'redacted_thinking',
  'image',
  'document',
]);
const OPENAI_ONLY_PARTS = new Set(['image_url', 'input_audio', 'file', 'refusal']);

/** Parses a transcript file's text; `file` picks JSON vs JSONL by extension and names the file in errors. */
export function parseTranscriptText(text: string, file: string): ParsedTranscript {
  const layout = layoutOf(text, file);
  if (layout === 'json') return parseJsonDocument(readJson(text, file), file);
  const items = readJsonl(text, file);
  const [first] = items;
  // A JSONL file holding one request body is the JSON layout on one line.
  if (items.length === 1 && first && isMessagesObject(first.value) && !hasRole(first.value)) {
    return parseJsonDocument(first.value, file, first.line);
  }
  return parseItems(items, file, 'corpus');
}

/** Cheap check used when loading a directory, to pass over files that are not transcripts (a manifest). */
export function looksLikeTranscript(text: string, file: string): boolean {
  try {
    if (layoutOf(text, file) === 'json') {
      const value = JSON.parse(text.trim()) as unknown;
      return Array.isArray(value) ? hasRole(value[0]) : isMessagesObject(value);
    }
    const firstLine = text.split('\n').find((line) => line.trim() !== '');
    if (firstLine === undefined) return true; // empty: let the parser report it
    const value = JSON.parse(firstLine) as unknown;
    return hasRole(value) || isMessagesObject(value) || (isObject(value) && 'system' in value);
  } catch {
    return true; // broken JSON in a transcript-named file is an error worth reporting
  }
}

export function detectMessagesFormat(
  values: readonly unknown[],
  fallback: TranscriptFormat,
): TranscriptFormat {
  let candidates = new Set(TRANSCRIPT_FORMATS);
  for (const value of values) {
    const allowed = formatsAllowedBy(value);
    const next = new Set([...candidates].filter((format) => allowed.has(format)));
    // A contradiction: stop here and let the parser of what was found so far name the bad message.
    if (next.size === 0) break;
    candidates = next;
    if (candidates.size === 1) break;
  }
  if (candidates.has(fallback)) return fallback;
  return TRANSCRIPT_FORMATS.find((format) => candidates.has(format)) ?? fallback;
}

function formatsAllowedBy(value: unknown): Set<TranscriptFormat> {
  const all = new Set(TRANSCRIPT_FORMATS);
  if (!isObject(value)) return all;
  if (!('role' in value) && 'system' in value) return new Set(['anthropic-messages']);
  const { role, content, tool_calls: toolCalls } = value;
  if (role === 'developer' || role === 'function') return new Set(['openai-chat']);
  if ('reasoning_content' in value || 'refusal' in value || 'function_call' in value || content === null) {
    return new Set(['openai-chat']);
  }
  if (Array.isArray(toolCalls) && isObject(toolCalls[0])) {
    if ('function' in toolCalls[0]) return new Set(['openai-chat']);
    if ('name' in toolCalls[0]) return new Set(['corpus']);
  }
  if (role === 'system' || role === 'tool' || 'tool_call_id' in value || 'reasoning' in value) {
    all.delete('anthropic-messages');
  }
  if (Array.isArray(content)) {
    all.delete('corpus');
    for (const block of content) {
      const type = isObject(block) ? block.type : undefined;
      if (typeof type !== 'string') continue;
      if (ANTHROPIC_ONLY_BLOCKS.has(type)) return new Set(['anthropic-messages']);
      if (OPENAI_ONLY_PARTS.has(type)) return new Set(['openai-chat']);
    }
  }
  return all;
}

function parseJsonDocument(value: unknown, file: string, line?: number): ParsedTranscript {
  const at = line !== undefined ? { line } : {};
  const where = { file, ...at };
  if (Array.isArray(value)) {
    return parseItems(
      value.map((message, index) => ({ value: message, field: `messages[${index}]`, ...at })),
      file,
      'openai-chat',
    );
  }
  if (!isMessagesObject(value)) {
    throw new InvalidInputError(
      'not a transcript: expected an array of messages or an object with "messages"',
      {
        ...where,
        field: 'messages',
      },
    );
  }
  const items: SourceItem[] = value.messages.map((message, index) => ({
    value: message,
    field: `messages[${index}]`,
    ...at,
  }));
  if ('system' in value && value.system !== undefined) {
    if (items.length === 0) throw new InvalidInputError('no messages', { ...where, field: 'messages' });
    const system = validateItem(anthropicSystemSchema, { value: value.system, field: 'system', ...at }, file);
    return {
      format: 'anthropic-messages',
      transcript: anthropicItemsToTranscript(
        items,
        file,
        typeof system === 'string' ? [system] : system.map((b) => b.text),
      ),
    };
  }
  return parseItems(items, file, 'openai-chat');
}

function parseItems(items: SourceItem[], file: string, fallback: TranscriptFormat): ParsedTranscript {
  if (items.length === 0) throw new InvalidInputError('no messages', { file });
  const format = detectMessagesFormat(
    items.map((item) => item.value),
    fallback,
  );
  switch (format) {
    case 'corpus':
      return { format, transcript: corpusItemsToTranscript(items, file) };
    case 'openai-chat':
      return { format, transcript: openAIChatItemsToTranscript(items, file) };
    case 'anthropic-messages':
      return { format, transcript: anthropicItemsToTranscript(items, file) };
  }
}

function layoutOf(text: string, file: string): 'json' | 'jsonl' {
  const lower = file.toLowerCase();
  if (lower.endsWith('.jsonl')) return 'jsonl';
  if (lower.endsWith('.json')) return 'json';
  return text.trimStart().startsWith('[') ? 'json' : 'jsonl';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasRole(value: unknown): boolean {
  return isObject(value) && 'role' in value;
}

function isMessagesObject(value: unknown): value is { messages: unknown[]; system?: unknown } {
  return isObject(value) && Array.isArray(value.messages);
}
