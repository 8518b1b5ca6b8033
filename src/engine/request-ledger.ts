import { isAgentVisible, type Message } from '../core/message.ts';
import {
  DEFAULT_TOOL_DEFINITION_OVERHEAD_TOKENS,
  estimateToolDefinitionTokens,
  toolDefinitionText,
} from '../core/tokens/estimate-tool-definition-tokens.ts';
import { measuredDenseBytes, measuredUnits } from '../core/tokens/measure-message.ts';
import { DEFAULT_MESSAGE_OVERHEAD_TOKENS, TOOL_CALL_TYPE } from '../core/tokens/token-estimate-options.ts';
import { countDenseBytes, tokensForDenseBytes } from '../core/tokens/token-floor.ts';
import { countTokenUnits } from '../core/tokens/token-units.ts';
import type { ToolDefinition } from '../core/tool-definition.ts';
import type { AssembledRequest } from './assemble-request.ts';
import type { RequestCounting } from './call-context.ts';
import type { SessionRuntime } from './session-runtime.ts';

/**
 * Token units × multiplier × this bounds what a model of unknown tokenizer counts, before any usage was
 * reported: o200k over token units reaches 1.14 on a whole corpus session and 1.17 on 99 % of single
 * large messages (1.35 at worst, on one message).
 */
export const REQUEST_BOUND_MARGIN = 1.25;
/** The same once reported usage has calibrated the multiplier to the model (p90 error ~3 %). */
export const CALIBRATED_REQUEST_BOUND_MARGIN = 1.12;

/** What kind of offloaded content a pointer in a prepared request leads to. */
export type PointerKind =
  /** A tool output spilled to a blob as it arrived (normalize layer), a preview left in view. */
  | 'spilled-output'
  /** An older tool result offloaded under pressure (clearing), a one-line pointer left in view. */
  | 'offloaded-result'
  /** Long tool-call arguments offloaded with their call's result. */
  | 'offloaded-arguments'
  /** The transcript of the summarized messages, named in the summary (`conversation_history/…`). */
  | 'summarized-transcript';

/** Where a pointer sits in the prepared request: one part of one message, or the system prompt. */
export type PointerLocation =
  | { in: 'message'; messageIndex: number; messageId: string; partIndex: number }
  | { in: 'system' };

/** One pointer the prepared request holds: `manager.readOffloaded(sessionId, ref)` reads what it stands for. */
export interface RequestPointer {
  ref: string;
  kind: PointerKind;
  at: PointerLocation;
  /**
   * The log message the pointer stands in for (results, arguments); for a transcript, the last seq
   * summarized. Absent for a pointer a summary or reminder quotes.
   */
  seq?: number;
  /** The tool call whose result or arguments were offloaded. */
  callId?: string;
}

/** A pointer found in one message, before the message's place in the request is known. */
interface LocalPointer {
  ref: string;
  kind: PointerKind;
  partIndex: number;
  seq: number;
  callId: string;
}

/**
 * A message's share of the request: tokens counted (`fixed`), or token units to scale (`units`) and the
 * dense bytes their count may not go below (`token-floor.ts`).
 */
interface MessageFigures {
  fixed: number;
  units: number;
  denseBytes: number;
}

/**
 * What the last request of a session held, message by message (the history after the injected
 * summary/reminder messages), with running totals: the next request reuses the figures and pointers of
 * every message that is the same object at the same place, so a call counts and scans what changed (the
 * messages appended since, a message an edit replaced), not the whole request.
 */
interface Ledger {
  key: string;
  history: Message[];
  figures: MessageFigures[];
  pointers: (LocalPointer[] | undefined)[];
  total: MessageFigures;
  /** The history's pointers placed in the last request, and the injected count they were placed after. */
  placed: RequestPointer[];
  placedAfter: number;
  system: { text: string; figures: MessageFigures } | undefined;
  /**
   * Pointers quoted by the injected messages and the system prompt, by message id (`system` for the
   * prompt), with the text that was scanned: a text equal to the last one asked under its id is not
   * scanned again (the same string, usually: an unchanged summary is one string from call to call).
   */
  quoted: Map<string, { text: string; found: QuotedPointer[] }>;
  tools: { tools: readonly ToolDefinition[]; key: string; figures: MessageFigures } | undefined;
}

const ledgers = new WeakMap<SessionRuntime, Ledger>();

const NOTHING: MessageFigures = Object.freeze({ fixed: 0, units: 0, denseBytes: 0 });

/** The request as the final guard counts it, and the pointers it holds. */
export interface RequestTally {
  /** Input tokens (exact), or an upper bound of them (bound); undefined when not counted. */
  tokens: number | undefined;
  method: RequestCounting['kind'];
  pointers: RequestPointer[];
}

/**
 * Counts an assembled request the way an independent scorer counts it (the request measurer of
 * `src/replay`: each visible message's text, reasoning, tool calls and results plus 4 tokens of framing,
 * the system prompt plus 4, each tool's name, description and compact JSON schema plus 8) and finds the
 * pointers it holds. Per-message counts come from the session's token cache (which keeps a count per
 * counter name); what the previous request held is reused by identity.
 */
export function tallyRequest(
  runtime: SessionRuntime,
  counting: RequestCounting,
  request: AssembledRequest,
  tools: readonly ToolDefinition[],
  count: boolean,
): RequestTally {
  const key = `${counting.kind}:${counting.counter.name}:${count}`;
  let ledger = ledgers.get(runtime);
  if (!ledger || ledger.key !== key) {
    ledger = {
      key,
      history: [],
      figures: [],
      pointers: [],
      total: { fixed: 0, units: 0, denseBytes: 0 },
      placed: [],
      placedAfter: 0,
      system: undefined,
      quoted: new Map(),
      tools: undefined,
    };
    ledgers.set(runtime, ledger);
  }
  const injected = request.injected.length;
  const messages = request.messages;
  const length = messages.length - injected;
  const before = ledger.history.length;
  const total = ledger.total;
  // Framing the cache's options leave out (a seed counting 0 or 3 per message), added to reach the scorer's.
  const framingGap = Math.max(
    0,
    DEFAULT_MESSAGE_OVERHEAD_TOKENS - runtime.tokenCache.options.messageOverheadTokens,
  );
  let replace = injected !== ledger.placedAfter;
  for (let index = 0; index < length; index++) {
    const message = messages[injected + index] as Message;
    if (index < before && ledger.history[index] === message) continue;
    if (index < before) {
      const old = ledger.figures[index] ?? NOTHING;
      total.fixed -= old.fixed;
      total.units -= old.units;
      total.denseBytes -= old.denseBytes;
      if (ledger.pointers[index]) replace = true;
    }
    const found = findPointers(runtime, message);
    ledger.history[index] = message;
    ledger.pointers[index] = found;
    if (found) {
      if (index < before) replace = true;
      else if (!replace)
        for (const pointer of found) ledger.placed.push(placed(pointer, injected + index, message.id));
    }
    const own = count ? messageFigures(runtime, counting, message, framingGap) : NOTHING;
    ledger.figures[index] = own;
    total.fixed += own.fixed;
    total.units += own.units;
    total.denseBytes += own.denseBytes;
  }
  for (let index = length; index < before; index++) {
    const old = ledger.figures[index] ?? NOTHING;
    total.fixed -= old.fixed;
    total.units -= old.units;
    total.denseBytes -= old.denseBytes;
    if (ledger.pointers[index]) replace = true;
  }
  if (before > length) {
    ledger.history.length = length;
    ledger.figures.length = length;
    ledger.pointers.length = length;
  }
  if (replace) {
    ledger.placed = [];
    for (let index = 0; index < length; index++) {
      const found = ledger.pointers[index];
      if (!found) continue;
      const id = ledger.history[index]?.id ?? '';
      for (const pointer of found) ledger.placed.push(placed(pointer, injected + index, id));
    }
    ledger.placedAfter = injected;
  }

  const pointers = quotedPointers(ledger, request);
  for (const pointer of ledger.placed) pointers.push(pointer);
  const transcript = runtime.view.summary;
  if (transcript?.historyRef !== undefined) {
    const at = summaryLocation(request, transcript.throughSeq, transcript.historyRef);
    if (at)
      pointers.unshift({
        ref: transcript.historyRef,
        kind: 'summarized-transcript',
        at,
        seq: transcript.throughSeq,
      });
  }
  if (!count) return { tokens: undefined, method: counting.kind, pointers };

  let fixed = total.fixed;
  let units = total.units;
  let denseBytes = total.denseBytes;
  for (let index = 0; index < injected; index++) {
    const own = messageFigures(runtime, counting, messages[index] as Message, framingGap);
    fixed += own.fixed;
    units += own.units;
    denseBytes += own.denseBytes;
  }
  if (request.system.length > 0) {
    if (ledger.system?.text !== request.system)
      ledger.system = { text: request.system, figures: systemFigures(counting, request.system) };
    fixed += ledger.system.figures.fixed;
    units += ledger.system.figures.units;
    denseBytes += ledger.system.figures.denseBytes;
  }
  if (tools.length > 0) {
    if (ledger.tools?.tools !== tools) {
      const toolsKey = JSON.stringify(tools);
      ledger.tools =
        ledger.tools?.key === toolsKey
          ? { ...ledger.tools, tools }
          : { tools, key: toolsKey, figures: toolFigures(counting, tools) };
    }
    fixed += ledger.tools.figures.fixed;
    units += ledger.tools.figures.units;
    denseBytes += ledger.tools.figures.denseBytes;
  }
  return { tokens: fixed + scaledUnits(counting, units, denseBytes), method: counting.kind, pointers };
}

/**
 * Units turned into bounding tokens: the multiplier learned so far, times the margin its evidence
 * warrants; never below the request's byte floor (`token-floor.ts`), the floor every count of a model of
 * unknown tokenizer keeps.
 */
function scaledUnits(counting: RequestCounting, units: number, denseBytes: number): number {
  if (counting.kind === 'exact' || units <= 0) return 0;
  const margin = counting.counter.anchors > 0 ? CALIBRATED_REQUEST_BOUND_MARGIN : REQUEST_BOUND_MARGIN;
  return Math.max(
    Math.ceil(units * counting.counter.tokensPerUnit * margin),
    tokensForDenseBytes(denseBytes),
  );
}

function messageFigures(
  runtime: SessionRuntime,
  counting: RequestCounting,
  message: Message,
  framingGap: number,
): MessageFigures {
  if (!isAgentVisible(message)) return NOTHING;
  // picoclaw counts each call's type as text; the scorer leaves it to the framing: taken back out. (Media
  // keep the policy's flat figure: nobody knows an image's cost better than the policy that sets it.)
  const calls = runtime.tokenCache.options.countToolCallType
    ? message.parts.filter((part) => part.type === 'tool-call').length
    : 0;
  if (counting.kind === 'exact') {
    const typeTokens = calls > 0 ? calls * counting.counter.count(TOOL_CALL_TYPE) : 0;
    const counted = runtime.tokenCache.estimate(message, counting.counter).total;
    return { fixed: counted - typeTokens + framingGap, units: 0, denseBytes: 0 };
  }
  const measure = runtime.tokenCache.measure(message, counting.counter);
  return {
    fixed: measure.media + measure.overhead + framingGap,
    units: measuredUnits(measure) - calls * countTokenUnits(TOOL_CALL_TYPE),
    denseBytes: measuredDenseBytes(measure) - calls * countDenseBytes(TOOL_CALL_TYPE),
  };
}

function systemFigures(counting: RequestCounting, text: string): MessageFigures {
  if (counting.kind === 'exact')
    return { fixed: counting.counter.count(text) + DEFAULT_MESSAGE_OVERHEAD_TOKENS, units: 0, denseBytes: 0 };
  return {
    fixed: DEFAULT_MESSAGE_OVERHEAD_TOKENS,
    units: counting.counter.tokenUnits(text),
    denseBytes: counting.counter.denseBytes(text),
  };
}

function toolFigures(counting: RequestCounting, tools: readonly ToolDefinition[]): MessageFigures {
  if (counting.kind === 'exact')
    return { fixed: estimateToolDefinitionTokens(tools, counting.counter), units: 0, denseBytes: 0 };
  let units = 0;
  let denseBytes = 0;
  for (const piece of toolDefinitionText(tools)) {
    units += counting.counter.tokenUnits(piece);
    denseBytes += counting.counter.denseBytes(piece);
  }
  return { fixed: tools.length * DEFAULT_TOOL_DEFINITION_OVERHEAD_TOKENS, units, denseBytes };
}

/** The pointer form offloaded arguments take inside a call's JSON arguments (see `offload-results.ts`). */
const ARGUMENT_POINTER = /\[offloaded \d+ chars · read_offloaded\(\\"([^"\\]+)\\"\)\]/g;

/**
 * Pointers one message of the history holds: a tool result the view shows through an evict edit whose
 * blob ref is still in its content (spilled on arrival, or offloaded by clearing), and tool-call
 * arguments offloaded behind pointers.
 */
function findPointers(runtime: SessionRuntime, message: Message): LocalPointer[] | undefined {
  let found: LocalPointer[] | undefined;
  if (message.role === 'tool') {
    const evicted = runtime.evictions.get(message.seq);
    if (!evicted) return undefined;
    message.parts.forEach((part, partIndex) => {
      if (part.type !== 'tool-result' || !part.content.includes(evicted.blobRef)) return;
      found ??= [];
      found.push({
        ref: evicted.blobRef,
        kind: evicted.layer === 'normalize' ? 'spilled-output' : 'offloaded-result',
        partIndex,
        seq: message.seq,
        callId: part.callId,
      });
    });
  } else if (message.role === 'assistant') {
    message.parts.forEach((part, partIndex) => {
      if (part.type !== 'tool-call' || !part.args.includes('read_offloaded(')) return;
      for (const match of part.args.matchAll(ARGUMENT_POINTER)) {
        const ref = match[1];
        if (ref === undefined) continue;
        found ??= [];
        found.push({ ref, kind: 'offloaded-arguments', partIndex, seq: message.seq, callId: part.callId });
      }
    });
  }
  return found;
}

/** A pointer a summary, a reminder or a digest quotes, with the kind its own wording says. */
interface QuotedPointer {
  ref: string;
  kind: PointerKind;
}

/** A pointer to offloaded content as ctxkit writes it, plain or JSON-escaped (inside arguments). */
const QUOTED_POINTER = /read_offloaded(?:\(| tool \(ref )\\?"([^"\\]+)\\?"\)/g;

/**
 * The pointers a text quotes, each with the kind its wording says: `[offloaded N chars · …]` is an
 * argument, `[<tool> output, ~N tokens, offloaded … · …]` a result offloaded by clearing, anything else
 * (the spill notice) a spilled output.
 */
function quotedIn(text: string): QuotedPointer[] {
  if (!text.includes('read_offloaded')) return [];
  const found = new Map<string, QuotedPointer>();
  for (const match of text.matchAll(QUOTED_POINTER)) {
    const ref = match[1];
    if (ref === undefined || found.has(ref)) continue;
    const opened = text.lastIndexOf('[', match.index);
    const lead = opened >= 0 && match.index - opened < 200 ? text.slice(opened, match.index) : '';
    const kind: PointerKind = /^\[offloaded \d+ chars · $/.test(lead)
      ? 'offloaded-arguments'
      : / output, ~\d+ tokens, offloaded/.test(lead)
        ? 'offloaded-result'
        : 'spilled-output';
    found.set(ref, { ref, kind });
  }
  return [...found.values()];
}

/**
 * Pointers the injected messages (summary, reminder) and a system prompt carrying them quote: a summary
 * keeps the pointers of the results and arguments it summarized. Each text is scanned once.
 */
function quotedPointers(ledger: Ledger, request: AssembledRequest): RequestPointer[] {
  const out: RequestPointer[] = [];
  const seen: Ledger['quoted'] = new Map();
  const scan = (key: string, text: string): QuotedPointer[] => {
    const cached = ledger.quoted.get(key);
    const found = cached?.text === text ? cached.found : quotedIn(text);
    seen.set(key, { text, found });
    return found;
  };
  const add = (text: string, key: string, at: PointerLocation) => {
    for (const pointer of scan(key, text)) out.push({ ref: pointer.ref, kind: pointer.kind, at });
  };
  const summaryIndex = request.injected.length;
  const first = request.messages[summaryIndex];
  const inFirstUser = first?.id.includes('~summary-') ? [summaryIndex] : [];
  for (const index of [...request.injected.keys(), ...inFirstUser]) {
    const message = request.messages[index];
    const part = message?.parts[0];
    if (!message || part?.type !== 'text') continue;
    add(part.text, `#${message.id}`, {
      in: 'message',
      messageIndex: index,
      messageId: message.id,
      partIndex: 0,
    });
  }
  if (request.system.includes('read_offloaded')) add(request.system, 'system', { in: 'system' });
  ledger.quoted = seen;
  return out;
}

function placed(pointer: LocalPointer, messageIndex: number, messageId: string): RequestPointer {
  return {
    ref: pointer.ref,
    kind: pointer.kind,
    at: { in: 'message', messageIndex, messageId, partIndex: pointer.partIndex },
    seq: pointer.seq,
    callId: pointer.callId,
  };
}

/**
 * Where the summary naming the transcript sits, as assembled: the system prompt, its own (or a system)
 * message, or the first user message it was put in front of (`~summary-<seq>` ids); only if the text
 * sent still names the ref.
 */
function summaryLocation(
  request: AssembledRequest,
  throughSeq: number,
  ref: string,
): PointerLocation | undefined {
  const own = `summary-${throughSeq}`;
  const prefixed = `~summary-${throughSeq}`;
  // Injected messages come first; a summary put in front of the first user message is at or before it.
  for (let index = 0; index < request.messages.length; index++) {
    const message = request.messages[index] as Message;
    if (message.id !== own && !message.id.endsWith(prefixed)) {
      if (index >= request.injected.length && message.role === 'user') break;
      continue;
    }
    const part = message.parts[0];
    if (part?.type === 'text' && part.text.includes(ref))
      return { in: 'message', messageIndex: index, messageId: message.id, partIndex: 0 };
    return undefined;
  }
  return request.system.includes(ref) ? { in: 'system' } : undefined;
}
