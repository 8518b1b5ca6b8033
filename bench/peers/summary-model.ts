/**
 * The one summary model every system in the bench gets: given the text a system sends its summarizer
 * (ctxkit's structured prompt, LangChain's `getBufferString` transcript inside its summary prompt,
 * deepagents' "Conversation to summarize:"), it reads the conversation back into messages and answers
 * with ctxkit's extractive summary of them. Deterministic and offline, so no system's summary is better
 * or worse than another's for any reason but what the system chose to show it.
 *
 * A previous summary found in the text (ctxkit's `<previous-summary>`, a LangChain/deepagents summary
 * message at the head of the conversation) is merged, not re-summarized: what a model is asked to do.
 */
import { performance } from 'node:perf_hooks';
import type { Summary } from '../../src/core/edit.ts';
import type { Message, Part, Role } from '../../src/core/message.ts';
import {
  DEFAULT_MAX_SUMMARY_TOKENS,
  DEFAULT_SUMMARY_TOOL_RESULT_MAX_CHARS,
} from '../../src/core/policy/presets/default.ts';
import { createExactCounter } from '../../src/core/tokens/exact-counter.ts';
import { summarizeExtractively } from '../../src/summarize/extractive-summarizer.ts';
import { parseSummaryText } from '../../src/summarize/parse-summary-text.ts';
import { SUMMARY_SECTIONS } from '../../src/summarize/summarizer.ts';

export interface SummaryModel {
  readonly name: string;
  /** Summaries written so far. */
  readonly calls: number;
  /** Wall time spent writing them (the model's time, not the system's). */
  readonly busyMs: number;
  /** What the summaries cost, in o200k tokens: everything sent (prompt and instructions) and the replies. */
  readonly inputTokens: number;
  readonly outputTokens: number;
  /**
   * The extractive summary of the conversation in `prompt`, at most `maxTokens` o200k tokens. `alsoSent`:
   * text the system sent beside the prompt (its system instructions), counted as input, not read.
   */
  summarize(prompt: string, maxTokens?: number, alsoSent?: string): string;
}

export interface SummaryModelOptions {
  /** Cap when the caller gives none (LangChain and deepagents do not): ctxkit's default summary cap. */
  maxTokens?: number;
  toolResultMaxChars?: number;
}

export function createSummaryModel(options: SummaryModelOptions = {}): SummaryModel {
  const counter = createExactCounter('o200k');
  const countTokens = (text: string): number => counter.count(text);
  const defaultMax = options.maxTokens ?? DEFAULT_MAX_SUMMARY_TOKENS;
  const toolResultMaxChars = options.toolResultMaxChars ?? DEFAULT_SUMMARY_TOOL_RESULT_MAX_CHARS;
  let calls = 0;
  let busyMs = 0;
  let inputTokens = 0;
  let outputTokens = 0;
  return {
    name: 'extractive-summary-model',
    get calls() {
      return calls;
    },
    get busyMs() {
      return busyMs;
    },
    get inputTokens() {
      return inputTokens;
    },
    get outputTokens() {
      return outputTokens;
    },
    summarize(prompt, maxTokens, alsoSent) {
      const started = performance.now();
      calls += 1;
      const { messages, previous } = readConversation(prompt);
      const summary = summarizeExtractively({
        messages,
        ...(previous ? { previous } : {}),
        throughSeq: Math.max(0, messages.length - 1),
        maxTokens: maxTokens && maxTokens > 0 ? maxTokens : defaultMax,
        toolResultMaxChars,
        countTokens,
      });
      inputTokens += countTokens(prompt) + (alsoSent ? countTokens(alsoSent) : 0);
      outputTokens += countTokens(summary.text);
      busyMs += performance.now() - started;
      return summary.text;
    },
  };
}

export interface ReadConversation {
  messages: Message[];
  previous?: Summary;
}

/** The conversation inside a summarization prompt, in whichever of the known forms it is written. */
export function readConversation(prompt: string): ReadConversation {
  const ctxkit = /<transcript>\n?([\s\S]*?)\n?<\/transcript>/.exec(prompt);
  if (ctxkit) {
    const previousText = /<previous-summary>\n?([\s\S]*?)\n?<\/previous-summary>/.exec(prompt)?.[1] ?? '';
    const previous = previousText.startsWith('(none') ? undefined : previousSummary(previousText);
    return { messages: readCtxkitTranscript(ctxkit[1] ?? ''), ...(previous ? { previous } : {}) };
  }
  const langchain = /Messages to summarize:\n([\s\S]*?)\n<\/messages>/.exec(prompt);
  const deepagents = /Conversation to summarize:\n([\s\S]*?)\n\nSummary:\s*$/.exec(prompt);
  return readBufferString(langchain?.[1] ?? deepagents?.[1] ?? prompt);
}

function previousSummary(text: string): Summary | undefined {
  const sections = parseSummaryText(text);
  if (!SUMMARY_SECTIONS.some((section) => sections[section].length > 0)) return undefined;
  return { text, sections, throughSeq: 0, tokens: 0, producer: 'previous' };
}

function message(seq: number, role: Role, parts: Part[]): Message {
  return { id: `summarized-${seq}`, seq, role, parts, meta: {} };
}

/** Pairs calls with the results that follow them, in order, under synthetic ids. */
class CallPairing {
  private next = 0;
  private open: { callId: string; name: string }[] = [];

  call(name: string, args: string): Part {
    const callId = `call-${this.next++}`;
    this.open.push({ callId, name });
    return { type: 'tool-call', callId, name, args };
  }

  result(name: string, content: string, isError: boolean): Part {
    const index = this.open.findIndex((call) => name === '' || call.name === name);
    const call = index >= 0 ? this.open.splice(index, 1)[0] : undefined;
    return {
      type: 'tool-result',
      callId: call?.callId ?? `result-${this.next++}`,
      name: name || call?.name || '',
      content,
      isError,
    };
  }

  newTurn(): void {
    this.open = [];
  }
}

const CTXKIT_HEADER = /^\[#(\d+) (user|assistant|tool)(?:, [\w-]+)?\]$/;
const CTXKIT_CALL = /^→ call (\S+) ?(.*)$/;
const CTXKIT_RESULT = /^← result(?: of (\S+?))?( \(error\))?:$/;

/** ctxkit's `renderTranscriptMessage` blocks: `[#seq role]` then the content. */
function readCtxkitTranscript(text: string): Message[] {
  const blocks: { role: Role; lines: string[] }[] = [];
  for (const line of text.split('\n')) {
    const header = CTXKIT_HEADER.exec(line);
    if (header) blocks.push({ role: header[2] as Role, lines: [] });
    else blocks.at(-1)?.lines.push(line);
  }
  const pairing = new CallPairing();
  return blocks.map((block, seq) => {
    const lines = trimBlock(block.lines);
    if (block.role === 'tool') {
      const head = CTXKIT_RESULT.exec(lines[0] ?? '');
      const content = (head ? lines.slice(1) : lines).join('\n');
      return message(seq, 'tool', [pairing.result(head?.[1] ?? '', content, head?.[2] !== undefined)]);
    }
    if (block.role === 'user') {
      pairing.newTurn();
      return message(seq, 'user', textParts(lines.join('\n')));
    }
    const parts: Part[] = [];
    const text: string[] = [];
    // A call's arguments follow its line; the lines up to the next call are its arguments.
    let args: string[] | undefined;
    let name = '';
    const endCall = (): void => {
      if (args) parts.push(pairing.call(name, args.join('\n')));
      args = undefined;
    };
    for (const line of lines) {
      const call = CTXKIT_CALL.exec(line);
      if (call) {
        endCall();
        name = call[1] ?? '';
        // Arguments on the call's own line (an older rendering) end it there.
        if (call[2]) parts.push(pairing.call(name, call[2]));
        else args = [];
      } else if (args) args.push(line);
      else text.push(line);
    }
    endCall();
    return message(seq, 'assistant', [...textParts(text.join('\n')), ...parts]);
  });
}

function trimBlock(lines: string[]): string[] {
  let end = lines.length;
  while (end > 0 && (lines[end - 1] ?? '').trim() === '') end--;
  return lines.slice(0, end);
}

function textParts(text: string): Part[] {
  return text.trim() ? [{ type: 'text', text }] : [];
}

const BUFFER_LINE = /^(Human|AI|Tool|System): /;
const SUMMARY_HEADS = [
  /^Here is a summary of the conversation to date:\s*/,
  /^You are in the middle of a conversation that has been summarized\.[\s\S]*?<summary>\s*/,
];

/**
 * LangChain's `getBufferString`: `Human: …`, `AI: …[tool calls as JSON]`, `Tool: name, …` and
 * `System: …` entries joined by newlines (an entry's own newlines stay in it).
 */
function readBufferString(text: string): ReadConversation {
  const entries: { role: string; text: string }[] = [];
  for (const line of text.split('\n')) {
    const head = BUFFER_LINE.exec(line);
    if (head) entries.push({ role: head[1] ?? '', text: line.slice(head[0].length) });
    else if (entries.length > 0) {
      const last = entries.at(-1);
      if (last) last.text += `\n${line}`;
    } else entries.push({ role: 'Human', text: line });
  }
  const pairing = new CallPairing();
  const knownTools = new Set<string>();
  const messages: Message[] = [];
  let previous: Summary | undefined;
  for (const entry of entries) {
    const seq = messages.length;
    if (entry.role === 'Human' || entry.role === 'System') {
      const head = SUMMARY_HEADS.map((pattern) => pattern.exec(entry.text)).find(Boolean);
      if (head) {
        const body = entry.text.slice(head[0].length).replace(/\s*<\/summary>\s*$/, '');
        previous = previousSummary(body) ?? previous;
        continue;
      }
      if (entry.role === 'System') continue;
      pairing.newTurn();
      messages.push(message(seq, 'user', textParts(entry.text)));
    } else if (entry.role === 'AI') {
      const { content, calls } = splitToolCalls(entry.text);
      const parts: Part[] = [...textParts(content)];
      for (const call of calls) {
        knownTools.add(call.name);
        parts.push(pairing.call(call.name, call.args));
      }
      messages.push(message(seq, 'assistant', parts));
    } else {
      const comma = entry.text.indexOf(', ');
      const name = comma > 0 ? entry.text.slice(0, comma) : '';
      const named = knownTools.has(name);
      const content = named ? entry.text.slice(comma + 2) : entry.text;
      messages.push(message(seq, 'tool', [pairing.result(named ? name : '', content, false)]));
    }
  }
  return { messages, ...(previous ? { previous } : {}) };
}

/** An AI entry's text, then its tool calls: `JSON.stringify(toolCalls)` appended to the content. */
function splitToolCalls(text: string): { content: string; calls: { name: string; args: string }[] } {
  const start = text.lastIndexOf('[{"');
  if (start < 0 || !text.endsWith(']')) return { content: text, calls: [] };
  // Search backwards for the opening bracket that makes the tail parse (content may hold `[{"` too).
  for (let at = start; at >= 0; at = text.lastIndexOf('[{"', at - 1)) {
    try {
      const parsed: unknown = JSON.parse(text.slice(at));
      if (!Array.isArray(parsed)) continue;
      const calls = parsed.flatMap((call: unknown) => {
        if (call === null || typeof call !== 'object') return [];
        const { name, args } = call as { name?: unknown; args?: unknown };
        if (typeof name !== 'string') return [];
        return [{ name, args: typeof args === 'string' ? args : JSON.stringify(args ?? {}) }];
      });
      return { content: text.slice(0, at), calls };
    } catch {
      if (at === 0) break;
    }
  }
  return { content: text, calls: [] };
}
