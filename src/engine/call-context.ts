import { isDeepStrictEqual } from 'node:util';
import { type RenderedIndex, renderMemoryIndex } from '../core/context-index/render-memory-index.ts';
import { renderSkillsIndex } from '../core/context-index/render-skills-index.ts';
import { systemWithIndexes } from '../core/context-index/system-with-indexes.ts';
import type { Policy } from '../core/policy/policy-schema.ts';
import type { SkillSummary } from '../core/skills/skill-source.ts';
import type { CalibratedTokenCounter } from '../core/tokens/calibrated-counter.ts';
import { CalibratedCounterRegistry } from '../core/tokens/calibrated-counter-registry.ts';
import { estimateToolDefinitionTokens } from '../core/tokens/estimate-tool-definition-tokens.ts';
import { createExactCounter, type ExactEncoding } from '../core/tokens/exact-counter.ts';
import { createHeuristicCounter } from '../core/tokens/heuristic-counter.ts';
import type { TokenCounter } from '../core/tokens/token-counter.ts';
import type { ToolDefinition } from '../core/tool-definition.ts';
import { findModelProfile } from '../providers/model-profiles.ts';
import { chooseContextWindow, type WindowSource } from '../providers/resolve-context-window.ts';
import type { IndexSources, IndexUnavailable } from './context-indexes.ts';
import type { AdoptedWindow } from './layer-progress.ts';

/**
 * What a caller says about the model call it is about to make. The session remembers it: a field left
 * out keeps the value the session's last call gave (the system prompt, the tools, the model, the window),
 * so `stats`, `compact` and `recover`, which take no request, measure the call the agent is making. To
 * change one, pass the new value; to send no tools or no system prompt, pass `[]` or `''`. It is kept in
 * the session store with the session (`setLastRequest`), so a restart or another process sharing the
 * store measures the same call.
 */
export interface PrepareRequest {
  system?: string;
  tools?: ToolDefinition[];
  /** The model this call goes to; it may change between calls (mid-session model switching). */
  model?: string;
  /** Overrides the policy's window / output reserve for this call. */
  contextWindow?: number;
  maxOutputTokens?: number;
}

export { UNBOUNDED_WINDOW, type WindowSource } from '../providers/resolve-context-window.ts';

/** A call, resolved: the window it has, the counter that measures it, and its fixed regions. */
export interface CallContext {
  model: string | undefined;
  contextWindow: number;
  windowSource: WindowSource;
  maxOutputTokens: number;
  /** The system prompt as sent: the caller's, then the skills index and the memory index (deepagents). */
  system: string;
  tools: ToolDefinition[];
  /** Tokens of `system`, indexes included: every budget, the final guard and stats count them. */
  systemTokens: number;
  /** The indexes appended to the caller's prompt (absent or empty text when not shown). */
  indexes?: PromptIndexes;
  /** Of `systemTokens`, what the memory index takes (stats report it as `memory`, not `system`). */
  memoryIndexTokens: number;
  /** Indexes the policy shows that could not be read this call (the request goes without them). */
  indexesUnavailable?: IndexUnavailable[];
  toolTokens: number;
  counter: TokenCounter;
  /** How the final guard counts the request as sent (see `final-guard.ts`), whatever `counter` is. */
  requestCounting: RequestCounting;
}

/**
 * How a request is counted before it leaves `prepare()`: `exact` with the model's own tokenizer when it
 * is known; otherwise `bound`: token units × a unit-linear counter's multiplier (the model's calibrated
 * counter, which learns from reported usage) × a margin, an upper bound of what the model counts.
 */
export type RequestCounting =
  | { kind: 'exact'; counter: TokenCounter }
  | { kind: 'bound'; counter: CalibratedTokenCounter };

/**
 * Chooses and keeps counters: exact when the model's tokenizer is known (and the policy allows), a
 * calibrated counter per model otherwise, so estimates converge on what the provider reports.
 */
export class CounterChooser {
  readonly #policy: Policy;
  readonly #fixed: TokenCounter | undefined;
  readonly #exact = new Map<string, TokenCounter>();
  readonly #byModel = new Map<string | undefined, TokenCounter>();
  readonly calibrated: CalibratedCounterRegistry;
  #heuristic: TokenCounter | undefined;

  constructor(policy: Policy, fixed?: TokenCounter) {
    this.#policy = policy;
    this.#fixed = fixed;
    this.calibrated = new CalibratedCounterRegistry({ priorCharsPerToken: policy.tokens.charsPerToken });
  }

  counterFor(model: string | undefined): TokenCounter {
    if (this.#fixed) return this.#fixed;
    // Asked before every call, nearly always for the same model: the profile lookup is done once.
    const chosen = this.#byModel.get(model);
    if (chosen) return chosen;
    const counter = this.#choose(model);
    this.#byModel.set(model, counter);
    return counter;
  }

  #choose(model: string | undefined): TokenCounter {
    const { counter, charsPerToken } = this.#policy.tokens;
    const known = this.#knownEncoding(model);
    if (counter === 'heuristic') {
      this.#heuristic ??= createHeuristicCounter(charsPerToken);
      return this.#heuristic;
    }
    if (counter === 'exact' || (counter === 'auto' && known)) return this.#exactFor(known ?? 'o200k');
    return this.calibrated.get(model ?? 'unknown-model');
  }

  /**
   * How the final guard counts a request to this model: the model's tokenizer when the policy or the
   * model profile names it (a policy that counts exactly says which), whatever counter the policy
   * estimates with; else the model's calibrated counter as an upper bound. Asked before every call.
   */
  requestCountingFor(model: string | undefined): RequestCounting {
    const chosen = this.#counting.get(model);
    if (chosen) return chosen;
    const known =
      this.#knownEncoding(model) ?? (this.#policy.tokens.counter === 'exact' ? 'o200k' : undefined);
    // A tokenizer the caller handed in (not a chars/N or unit-linear estimate) is the model's.
    const given = this.#fixed && !isLinear(this.#fixed) ? this.#fixed : undefined;
    const counting: RequestCounting = given
      ? { kind: 'exact', counter: given }
      : known
        ? { kind: 'exact', counter: this.#exactFor(known) }
        : { kind: 'bound', counter: this.calibrated.get(model ?? 'unknown-model') };
    this.#counting.set(model, counting);
    return counting;
  }

  readonly #counting = new Map<string | undefined, RequestCounting>();

  #knownEncoding(model: string | undefined): ExactEncoding | undefined {
    return this.#policy.tokens.encoding ?? (model ? findModelProfile(model)?.encoding : undefined);
  }

  #exactFor(encoding: ExactEncoding): TokenCounter {
    let exact = this.#exact.get(encoding);
    if (!exact) {
      exact = createExactCounter(encoding);
      this.#exact.set(encoding, exact);
    }
    return exact;
  }
}

const isLinear = (counter: TokenCounter): boolean =>
  counter.charsPerToken !== undefined || counter.tokensPerUnit !== undefined;

/** Per-session memo of the fixed regions' token counts: the system prompt and tools rarely change. */
/** What a counter's figures depend on: itself, and the ratio a calibrated counter has learned so far. */
const counterState = (counter: TokenCounter): string =>
  `${counter.name}@${counter.tokensPerUnit ?? counter.charsPerToken ?? ''}`;

/** The indexes as appended to the system prompt, with how many of their lines the caps left out. */
export interface PromptIndexes {
  skills: RenderedIndex;
  memory: RenderedIndex;
}

export interface FixedRegionMemo {
  indexes?: {
    counter: string;
    skillsMax: number;
    memoryMax: number;
    skills: readonly SkillSummary[] | undefined;
    memoryIndex: string | undefined;
    rendered: PromptIndexes;
  };
  window?: { key: string; contextWindow: number; maxOutputTokens: number; source: WindowSource };
  system?: { text: string; counter: string; tokens: number };
  /** The system prompt without the memory index: what is left of it is the index's own share. */
  systemBeforeMemory?: { text: string; counter: string; tokens: number };
  tools?: { tools: readonly ToolDefinition[]; key: string; counter: string; tokens: number };
  request?: PrepareRequest;
}

export function resolveCallContext(
  policy: Policy,
  request: PrepareRequest,
  memo: FixedRegionMemo,
  counters: CounterChooser,
  sources: IndexSources = {},
  adopted?: AdoptedWindow,
): CallContext {
  const effective: PrepareRequest = { ...memo.request, ...definedOnly(request) };
  // A caller that builds its tools anew each call (a proxy parses them from every body) gets the array
  // the session already holds when they are the same, so what is kept per tools array (their count,
  // the request's tally, the stored last request) is looked up by identity, not worked out again.
  const heldTools = memo.request?.tools;
  if (
    effective.tools !== undefined &&
    heldTools !== undefined &&
    effective.tools !== heldTools &&
    isDeepStrictEqual(effective.tools, heldTools)
  )
    effective.tools = heldTools;
  memo.request = effective;
  const model = effective.model ?? policy.model;
  // The window an overflow error named for this model caps the one the rule gives (never the request
  // remembered: another model, or the next process, is not held to it).
  const learned = adopted !== undefined && adopted.model === model ? adopted.contextWindow : undefined;
  const window = resolveWindow(memo, policy, model, effective, learned);
  const counter = counters.counterFor(model);
  // The caller's prompt stays a byte-stable prefix; the indexes follow it and are counted with it.
  const indexes = promptIndexes(memo, policy, sources, counter);
  const system = systemWithIndexes(effective.system ?? '', {
    skills: indexes.skills.text,
    memory: indexes.memory.text,
  });
  const tools = effective.tools ?? [];
  const promptTokens = systemTokens(memo, system, counter, policy.tokens.messageOverhead);
  // The index's share is what it adds to the prompt, counted as sent (its own count would differ by the
  // token merged across the seam), so system and memory add up to the prompt exactly.
  const memoryIndexTokens = indexes.memory.text
    ? promptTokens -
      systemTokens(
        memo,
        systemWithIndexes(effective.system ?? '', { skills: indexes.skills.text }),
        counter,
        policy.tokens.messageOverhead,
        'systemBeforeMemory',
      )
    : 0;
  return {
    model,
    contextWindow: window.contextWindow,
    maxOutputTokens: window.maxOutputTokens,
    windowSource: window.source,
    system,
    tools,
    systemTokens: promptTokens,
    indexes,
    memoryIndexTokens,
    ...(sources.unavailable ? { indexesUnavailable: sources.unavailable } : {}),
    toolTokens: toolTokens(memo, tools, counter),
    counter,
    requestCounting: counters.requestCountingFor(model),
  };
}

/**
 * Window and output reserve for this model and these settings, by the one window rule
 * (`chooseContextWindow`: the caller's window, else the policy's; the profile when the policy looks
 * windows up; 4 × the reserve when it does not; tiancai's fallbacks); looked up once per combination.
 */
function resolveWindow(
  memo: FixedRegionMemo,
  policy: Policy,
  model: string | undefined,
  request: PrepareRequest,
  learned: number | undefined,
): { contextWindow: number; maxOutputTokens: number; source: WindowSource } {
  const contextWindow = request.contextWindow ?? policy.budget.contextWindow;
  const maxOutputTokens = request.maxOutputTokens ?? policy.budget.maxOutputTokens;
  const key = `${model}|${contextWindow}|${maxOutputTokens}|${learned}`;
  if (memo.window?.key === key) return memo.window;
  const chosen = chooseContextWindow(policy, { model, contextWindow, maxOutputTokens, learned });
  memo.window = {
    key,
    contextWindow: chosen.contextWindow,
    maxOutputTokens: chosen.maxOutputTokens,
    source: chosen.windowSource,
  };
  return memo.window;
}

const NOTHING: RenderedIndex = { text: '', omitted: 0 };
const NO_INDEXES: PromptIndexes = { skills: NOTHING, memory: NOTHING };

/**
 * The skills and memory indexes as the policy shows them, each clipped to its cap (0 = none) by the call's
 * counter; rendered again only when a source, the counter or the settings changed.
 */
function promptIndexes(
  memo: FixedRegionMemo,
  policy: Policy,
  sources: IndexSources,
  counter: TokenCounter,
): PromptIndexes {
  const { skills, memory } = policy.indexes;
  const showSkills = skills.show && sources.skills !== undefined && sources.skills.length > 0;
  const showMemory = memory.show && sources.memoryIndex !== undefined;
  if (!showSkills && !showMemory) return NO_INDEXES;
  // Asked before every call: what it was rendered from is compared, not serialized (a memory index can
  // be megabytes; an unchanged one is usually the same string, which compares at once).
  const shownSkills = showSkills ? sources.skills : undefined;
  const shownMemory = showMemory ? sources.memoryIndex : undefined;
  const held = memo.indexes;
  if (
    held !== undefined &&
    held.counter === counterState(counter) &&
    held.skillsMax === skills.maxTokens &&
    held.memoryMax === memory.maxTokens &&
    held.memoryIndex === shownMemory &&
    sameSkills(held.skills, shownSkills)
  )
    return held.rendered;
  const count = (text: string) => counter.count(text);
  const cap = (maxTokens: number) => (maxTokens > 0 ? maxTokens : Number.POSITIVE_INFINITY);
  const rendered: PromptIndexes = {
    skills: showSkills
      ? renderSkillsIndex(sources.skills ?? [], { maxTokens: cap(skills.maxTokens), count })
      : NOTHING,
    memory: showMemory
      ? renderMemoryIndex(sources.memoryIndex ?? '', { maxTokens: cap(memory.maxTokens), count })
      : NOTHING,
  };
  memo.indexes = {
    counter: counterState(counter),
    skillsMax: skills.maxTokens,
    memoryMax: memory.maxTokens,
    skills: shownSkills,
    memoryIndex: shownMemory,
    rendered,
  };
  return rendered;
}

function sameSkills(a: readonly SkillSummary[] | undefined, b: readonly SkillSummary[] | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a.length !== b.length) return false;
  return a.every(
    (skill, index) => skill.name === b[index]?.name && skill.description === b[index]?.description,
  );
}

function systemTokens(
  memo: FixedRegionMemo,
  text: string,
  counter: TokenCounter,
  overhead: number,
  slot: 'system' | 'systemBeforeMemory' = 'system',
): number {
  if (text.length === 0) return 0;
  const cached = memo[slot];
  const state = counterState(counter);
  if (cached && cached.counter === state && cached.text === text) return cached.tokens;
  const tokens = counter.count(text) + overhead;
  memo[slot] = { text, counter: state, tokens };
  return tokens;
}

function toolTokens(memo: FixedRegionMemo, tools: readonly ToolDefinition[], counter: TokenCounter): number {
  if (tools.length === 0) return 0;
  const cached = memo.tools;
  const state = counterState(counter);
  if (cached && cached.counter === state && cached.tools === tools) return cached.tokens;
  // A caller may build a new array each call: compare by content before recounting.
  const key = JSON.stringify(tools);
  if (cached && cached.counter === state && cached.key === key) {
    memo.tools = { ...cached, tools };
    return cached.tokens;
  }
  const tokens = estimateToolDefinitionTokens(tools, counter);
  memo.tools = { tools, key, counter: state, tokens };
  return tokens;
}

function definedOnly(request: PrepareRequest): PrepareRequest {
  const out: PrepareRequest = {};
  if (request.system !== undefined) out.system = request.system;
  if (request.tools !== undefined) out.tools = request.tools;
  if (request.model !== undefined) out.model = request.model;
  if (request.contextWindow !== undefined) out.contextWindow = request.contextWindow;
  if (request.maxOutputTokens !== undefined) out.maxOutputTokens = request.maxOutputTokens;
  return out;
}
