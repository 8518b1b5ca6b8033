import type { Summary } from '../core/edit.ts';
import { InvalidPolicyError, SummarizerError } from '../core/errors/index.ts';
import { type Message, textOf, type Usage } from '../core/message.ts';
import { isContextOverflow, parseOverflowTokens } from '../providers/is-context-overflow.ts';
import type { ModelClient, ModelRequest } from '../providers/model-client.ts';
import { cutHead, cutToTokens, oneLine } from './cut-text.ts';
import { fitSummary, orderByPriority } from './fit-summary.ts';
import { parseSummaryText } from './parse-summary-text.ts';
import { remergePrevious } from './remerge-previous.ts';
import { renderSections } from './render-summary.ts';
import { selectTranscript } from './select-transcript.ts';
import { SUMMARY_SECTIONS, type SummarizeInput, type Summarizer } from './summarizer.ts';
import { buildSummaryPrompt, SUMMARY_SYSTEM_PROMPT } from './summary-prompt.ts';
import {
  DEFAULT_MAX_ITEMS_PER_SECTION,
  SECTION_ITEM_MAX_CHARS,
  type SummarySections,
  sectionsFrom,
} from './summary-sections.ts';

/**
 * Tokens reserved beyond the counted text for the chat format's own framing (role markers, message
 * separators): a provider counts a little more than the text, and the bound must hold on its side.
 */
export const DEFAULT_PROMPT_OVERHEAD_TOKENS = 16;
/** Below this many tokens left for the transcript, the call is pointless: fail instead (the engine drops). */
export const MIN_TRANSCRIPT_TOKENS = 64;
/** `producer` of a summary the fallback made after the model failed: `fallback:extractive`. */
export const FALLBACK_PRODUCER_PREFIX = 'fallback:';

export const isFallbackSummary = (summary: Pick<Summary, 'producer'>): boolean =>
  summary.producer.startsWith(FALLBACK_PRODUCER_PREFIX);

export interface ModelSummarizerOptions {
  client: ModelClient;
  /** The policy's summary model when set, else the main one: the engine decides, this takes it as given. */
  model: string;
  /** Hard bound on the summarization request's input (system prompt + prompt), in `countTokens` tokens. */
  maxInputTokens: number;
  /** Sent only when set: some models (o-series, GPT-5) reject any temperature but their default. */
  temperature?: number;
  /**
   * The summary model's own output cap (digitorn `summary_brain.max_tokens`). A request never asks for more
   * than the smaller of it and the summary's cap (`SummarizeInput.maxTokens`, digitorn `summary_max_tokens`).
   */
  maxOutputTokens?: number;
  /** Used when the model call fails; its summary comes back with `producer` = `fallback:<its producer>`. */
  fallback?: Summarizer;
  /** Told about a failure the fallback covered (the engine records it: the summary is not the model's). */
  onFallback?: (error: SummarizerError) => void;
  promptOverheadTokens?: number;
  maxItemsPerSection?: number;
  /** Longest user/assistant text kept per message in the prompt, in runes. */
  transcriptMessageMaxChars?: number;
}

/**
 * The model-backed summarizer: one call with a structured prompt (previous summary to update, bounded
 * transcript, fixed section format), the reply parsed back into sections, the previous summary's
 * requests, files, errors and commands re-merged mechanically where the model dropped them, and the
 * result rendered within `maxTokens`, which is also the request's output cap.
 */
export function createModelSummarizer(options: ModelSummarizerOptions): Summarizer {
  if (!options.model.trim()) throw new InvalidPolicyError('model', 'the summary model must be named');
  if (!Number.isInteger(options.maxInputTokens) || options.maxInputTokens <= 0) {
    throw new InvalidPolicyError(
      'maxInputTokens',
      `must be a positive integer, got ${options.maxInputTokens}`,
    );
  }
  const { maxOutputTokens } = options;
  if (maxOutputTokens !== undefined && (!Number.isInteger(maxOutputTokens) || maxOutputTokens <= 0)) {
    throw new InvalidPolicyError('maxOutputTokens', `must be a positive integer, got ${maxOutputTokens}`);
  }
  const name = `model:${options.model}`;
  return {
    name,
    usesModel: true,
    async summarize(input: SummarizeInput): Promise<Summary> {
      try {
        return await summarizeFitting(name, options, input);
      } catch (error) {
        if (!SummarizerError.isInstance(error) || error.failure === 'aborted' || !options.fallback)
          throw error;
        options.onFallback?.(error);
        const summary = await options.fallback.summarize(input);
        return { ...summary, producer: `${FALLBACK_PRODUCER_PREFIX}${summary.producer}` };
      }
    },
  };
}

/**
 * A summary call is never refused for being too long: the prompt is cut to `maxInputTokens` before it is
 * sent, and when the provider still reports an overflow (its tokenizer counts more than ours, or the window
 * it serves is smaller than configured), the call is made again with half the input, then a quarter.
 */
async function summarizeFitting(
  name: string,
  options: ModelSummarizerOptions,
  input: SummarizeInput,
): Promise<Summary> {
  let maxInputTokens = options.maxInputTokens;
  for (let attempt = 0; ; attempt++) {
    let sent = maxInputTokens;
    try {
      return await summarizeWithModel(name, { ...options, maxInputTokens }, input, (tokens) => {
        sent = tokens;
      });
    } catch (error) {
      const overflowed = SummarizerError.isInstance(error) && error.overflow;
      if (!overflowed || attempt >= SUMMARY_OVERFLOW_RETRIES) throw error;
      // Half of what was sent; less when the provider said how large its window is.
      const { limit } = parseOverflowTokens(error.cause);
      const room =
        limit !== undefined ? Math.floor((limit - input.maxTokens) * 0.8) : Number.POSITIVE_INFINITY;
      maxInputTokens = Math.max(MIN_SUMMARY_INPUT_TOKENS, Math.min(Math.floor(sent / 2), room));
    }
  }
}

/** Times a summary call that overflowed is sent again with half the input. */
export const SUMMARY_OVERFLOW_RETRIES = 2;
/** The least input a retried summary call is cut to. */
export const MIN_SUMMARY_INPUT_TOKENS = 1_000;

async function summarizeWithModel(
  name: string,
  options: ModelSummarizerOptions,
  asked: SummarizeInput,
  onPromptTokens: (tokens: number) => void = () => {},
): Promise<Summary> {
  // The model cannot write more than its own cap: the prompt, the request and the fitting all use the smaller.
  const input =
    options.maxOutputTokens !== undefined && options.maxOutputTokens < asked.maxTokens
      ? { ...asked, maxTokens: options.maxOutputTokens }
      : asked;
  const { countTokens } = input;
  const previous = sectionsFrom(input.previous?.sections);
  const systemTokens = countTokens(SUMMARY_SYSTEM_PROMPT);
  const { prompt, tokens: promptTokens } = boundedPrompt(name, options, input, previous, systemTokens);
  onPromptTokens(promptTokens + systemTokens);
  const request: ModelRequest = {
    model: options.model,
    system: SUMMARY_SYSTEM_PROMPT,
    messages: [promptMessage(prompt)],
    maxOutputTokens: input.maxTokens,
    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
    ...(input.signal ? { signal: input.signal } : {}),
  };

  let reply: string;
  const started = performance.now();
  const report = (usage: Usage | undefined, model: string, error?: string): void =>
    input.onReport?.({
      summarizer: name,
      model,
      inputTokens: usage?.inputTokens ?? 0,
      outputTokens: usage?.outputTokens ?? 0,
      tokenSource: 'provider',
      ...(usage ? { usage } : {}),
      durationMs: performance.now() - started,
      throughSeq: input.throughSeq,
      ...(error !== undefined ? { error } : {}),
    });
  try {
    const response = await options.client.complete(request);
    reply = textOf(response.message).trim();
    report(
      response.usage,
      response.model || options.model,
      reply ? undefined : 'summary model returned no text',
    );
  } catch (cause) {
    const aborted = input.signal?.aborted === true;
    const error = new SummarizerError(
      aborted ? 'summarization aborted' : `summary model call failed: ${describe(cause)}`,
      {
        summarizer: name,
        failure: aborted ? 'aborted' : 'model_call_failed',
        cause,
        overflow: isContextOverflow(cause),
        model: options.model,
      },
    );
    report(undefined, options.model, error.message);
    throw error;
  }
  if (!reply) {
    throw new SummarizerError('summary model returned no text', {
      summarizer: name,
      failure: 'empty_reply',
      model: options.model,
    });
  }

  const parsed = parseSummaryText(reply);
  if (!SUMMARY_SECTIONS.some((section) => parsed[section].length > 0)) {
    // The model ignored the format: keep its prose as facts rather than lose the call.
    parsed.facts = reply
      .split(/\n\s*\n/)
      .map((paragraph) => cutHead(oneLine(paragraph), SECTION_ITEM_MAX_CHARS.facts))
      .filter(Boolean);
  }
  const maxItems = options.maxItemsPerSection ?? DEFAULT_MAX_ITEMS_PER_SECTION;
  const { sections, readded } = remergePrevious(parsed, previous, reply);
  for (const section of SUMMARY_SECTIONS) {
    const items = sections[section];
    if (items.length > maxItems) {
      const cut = items.length - maxItems;
      sections[section] = items.slice(cut);
      readded[section] = Math.max(0, readded[section] - cut);
    }
  }
  // The model's own items first; re-added previous items only where budget remains.
  const isReadded = (ref: { section: (typeof SUMMARY_SECTIONS)[number]; index: number }): boolean =>
    ref.index < readded[ref.section];
  const order = [
    ...orderByPriority(sections, (ref) => !isReadded(ref)),
    ...orderByPriority(sections, isReadded),
  ];
  const header = input.historyRef ? { historyRef: input.historyRef } : {};
  const fitted = fitSummary({ sections, order, header, maxTokens: input.maxTokens, countTokens });
  return {
    text: fitted.text,
    sections: fitted.sections,
    throughSeq: input.throughSeq,
    tokens: fitted.tokens,
    ...(input.historyRef ? { historyRef: input.historyRef } : {}),
    producer: name,
  };
}

/**
 * The user prompt, bounded so that system prompt + prompt + framing ≤ `maxInputTokens`: the fixed parts
 * are priced first, the transcript gets what is left (oldest middle elided), and the whole is counted
 * again, tightening the transcript until it fits. The previous summary is shrunk only when it alone
 * would leave the transcript less than `MIN_TRANSCRIPT_TOKENS`.
 */
function boundedPrompt(
  name: string,
  options: ModelSummarizerOptions,
  input: SummarizeInput,
  previous: SummarySections,
  systemTokens: number,
): { prompt: string; tokens: number } {
  const { countTokens } = input;
  const overhead = options.promptOverheadTokens ?? DEFAULT_PROMPT_OVERHEAD_TOKENS;
  const limit = options.maxInputTokens - overhead - systemTokens;
  const instructions = input.instructions;
  const build = (previousText: string | undefined, transcript: string): string =>
    buildSummaryPrompt({ previous: previousText, transcript, instructions, maxTokens: input.maxTokens });

  let previousText: string | undefined = renderSections(previous).trim() || undefined;
  let frame = build(previousText, '');
  let frameTokens = countTokens(frame);
  if (limit - frameTokens < MIN_TRANSCRIPT_TOKENS && previousText !== undefined) {
    const room = limit - countTokens(build('', '')) - MIN_TRANSCRIPT_TOKENS;
    previousText = room > 0 ? fitPrevious(previous, room, countTokens) : undefined;
    frame = build(previousText, '');
    frameTokens = countTokens(frame);
  }
  let budget = limit - frameTokens;
  if (budget < MIN_TRANSCRIPT_TOKENS) {
    throw new SummarizerError(
      `maxInputTokens (${options.maxInputTokens}) leaves ${Math.max(0, budget)} tokens for the transcript`,
      { summarizer: name, failure: 'input_budget_too_small', maxInputTokens: options.maxInputTokens },
    );
  }

  for (let attempt = 0; attempt < 4; attempt++) {
    const transcript = selectTranscript({
      messages: input.messages,
      maxTokens: budget,
      countTokens,
      toolResultMaxChars: input.toolResultMaxChars,
      // The whole prompt is counted just below, and the budget tightened if it is over.
      verify: false,
      ...(options.transcriptMessageMaxChars !== undefined
        ? { messageMaxChars: options.transcriptMessageMaxChars }
        : {}),
    });
    const prompt = build(previousText, transcript.text);
    // The transcript's blocks were counted one by one: their sum, with a token of slack for each place
    // a block meets its neighbour, bounds the whole. Only a prompt near the limit is counted again.
    const bound = frameTokens + transcript.tokens + transcript.blocks + 1;
    if (bound <= limit) return { prompt, tokens: bound };
    const tokens = countTokens(prompt);
    const over = tokens - limit;
    if (over <= 0) return { prompt, tokens };
    budget -= over + 8;
  }
  const cut = cutToTokens(frame, limit, countTokens);
  return { prompt: cut, tokens: countTokens(cut) };
}

function fitPrevious(
  previous: SummarySections,
  room: number,
  countTokens: (text: string) => number,
): string | undefined {
  const order = orderByPriority(previous);
  const fitted = fitSummary({ sections: previous, order, header: {}, maxTokens: room, countTokens });
  return renderSections(fitted.sections).trim() || undefined;
}

function promptMessage(text: string): Message {
  return { id: 'ctxkit-summary-request', seq: 0, role: 'user', parts: [{ type: 'text', text }], meta: {} };
}

function describe(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
