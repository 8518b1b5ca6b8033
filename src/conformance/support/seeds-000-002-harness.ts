import type { Summary } from '../../core/edit.ts';
import { ModelCallError } from '../../core/errors/index.ts';
import type { ContextEvent } from '../../core/events.ts';
import type { Message, MessageInput, ToolResultPart } from '../../core/message.ts';
import { textOf, toolResultOf } from '../../core/message.ts';
import type { Policy } from '../../core/policy/policy-schema.ts';
import { type ContextManagerOptions, createContextManager } from '../../engine/context-manager.ts';
import { createExtractiveSummarizer } from '../../summarize/extractive-summarizer.ts';
import type { SummarizeInput, Summarizer } from '../../summarize/summarizer.ts';
import { loadCorpusSession } from '../../testing/corpus.ts';
import { asInput } from '../../testing/replay-session.ts';

/**
 * Shared helpers of the conformance files for cowagent, tiancai and deepagents. Names are
 * prefixed `seeds-000-002-` on disk so the files for digitorn and picoclaw can keep their own.
 */

/** A statement of a seed that cannot apply to ctxkit's engine, and why. */
export interface NotApplicable {
  statement: string;
  reason: string;
}

/** Epoch ms starting at a fixed instant, one second per call: deterministic edit ids and event times. */
export function seedClock(): () => number {
  let now = 1_700_000_000_000;
  return () => {
    now += 1_000;
    return now;
  };
}

/** A manager on the preset with a model set (the presets leave it to the caller), with a fixed clock. */
export function seedManager(policy: Policy, options: Omit<ContextManagerOptions, 'policy'> = {}) {
  return createContextManager({ clock: seedClock(), ...options, policy });
}

/** The corpus session's messages, as callers hand them in, optionally sliced. */
export function corpusInputs(file: string, from = 0, to?: number): MessageInput[] {
  return loadCorpusSession(file).messages.slice(from, to).map(asInput);
}

/** Several corpus sessions one after another, as one long conversation (each starts a new turn). */
export function concatCorpus(files: readonly string[]): MessageInput[] {
  return files.flatMap((file) => corpusInputs(file));
}

/** The inputs up to (not including) the `count + 1`-th user message: exactly `count` turns. */
export function firstTurns(inputs: readonly MessageInput[], count: number): MessageInput[] {
  let users = 0;
  const end = inputs.findIndex((input) => input.role === 'user' && ++users > count);
  return inputs.slice(0, end === -1 ? inputs.length : end);
}

export function resultOf(message: Pick<Message, 'parts'>): ToolResultPart | undefined {
  return toolResultOf(message);
}

/** Tool result contents of the messages, in order. */
export function resultContents(messages: readonly Pick<Message, 'parts'>[]): string[] {
  return messages.flatMap((message) => {
    const result = toolResultOf(message);
    return result ? [result.content] : [];
  });
}

/** Tool-call ids of the messages, in order. */
export function callIds(messages: readonly Pick<Message, 'parts'>[]): string[] {
  return messages.flatMap((message) =>
    message.parts.flatMap((part) => (part.type === 'tool-call' ? [part.callId] : [])),
  );
}

/** Every text the model would read in these messages: text, reasoning, call arguments, results. */
export function allText(messages: readonly Pick<Message, 'parts'>[]): string {
  return messages
    .flatMap((message) =>
      message.parts.map((part) => {
        switch (part.type) {
          case 'text':
          case 'reasoning':
            return part.text;
          case 'tool-call':
            return part.args;
          case 'tool-result':
            return part.content;
          default:
            return part.ref;
        }
      }),
    )
    .join('\n');
}

export function firstText(message: Pick<Message, 'parts'> | undefined): string {
  return message ? textOf(message) : '';
}

/** Unicode code points ("runes"), as the Go seeds count characters. */
export function runes(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/**
 * A provider's context-overflow error (OpenAI's code), without token figures: the engine then assumes
 * its estimate missed by a tenth of the window, not by whatever a made-up figure would claim.
 */
export function overflowError(): ModelCallError {
  return new ModelCallError('Input exceeds the context window of this model.', {
    status: 400,
    providerCode: 'context_length_exceeded',
  });
}

export function eventsOfType<T extends ContextEvent['type']>(
  events: readonly ContextEvent[],
  type: T,
): Extract<ContextEvent, { type: T }>[] {
  return events.filter((event): event is Extract<ContextEvent, { type: T }> => event.type === type);
}

/**
 * A summarizer standing in for the LLM: records every input, answers with `reply` (or the extractive
 * summary when none is given), or fails when `reply` returns an Error.
 */
export class RecordingSummarizer implements Summarizer {
  readonly name = 'model:recording';
  readonly usesModel = true;
  readonly calls: SummarizeInput[] = [];
  readonly #reply: ((input: SummarizeInput) => string | Error) | undefined;
  readonly #extractive = createExtractiveSummarizer();

  constructor(reply?: (input: SummarizeInput) => string | Error) {
    this.#reply = reply;
  }

  async summarize(input: SummarizeInput): Promise<Summary> {
    this.calls.push(input);
    const answer = this.#reply?.(input);
    if (answer instanceof Error) throw answer;
    if (answer === undefined) {
      const summary = await this.#extractive.summarize(input);
      return { ...summary, producer: this.name };
    }
    return {
      text: answer,
      sections: {},
      throughSeq: input.throughSeq,
      tokens: input.countTokens(answer),
      ...(input.historyRef ? { historyRef: input.historyRef } : {}),
      producer: this.name,
    };
  }
}

/** `lines` numbered lines of `width` characters each: `line 0 xxx…`, easy to find head and tail of. */
export function numberedLines(lines: number, width = 40): string {
  return Array.from({ length: lines }, (_, index) => {
    const label = `line ${index} `;
    return label + 'x'.repeat(Math.max(0, width - label.length));
  }).join('\n');
}
