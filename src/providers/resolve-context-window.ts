/**
 * The window a call runs with, and the reply reserve beside it: one rule, for every door. The library's
 * `prepare` (and the AI SDK and LangChain.js middlewares, which go through it), `ctxkit config`,
 * `inspect` and `replay`, `ctxkit chat` and `ctxkit serve` all call {@link chooseContextWindow}; a door
 * gives what it knows, and a step with nothing to go on is passed over:
 *
 * 1. The window the caller configured: `prepare`'s `contextWindow`, else the policy's
 *    `budget.contextWindow` (`--window` in chat, config, inspect and replay).
 * 2. When the policy looks windows up (`budget.detectWindow`: every preset but picoclaw): the size the
 *    server says it serves the model with (chat and serve ask a local server: Ollama, vLLM, llama.cpp;
 *    seed 002: the loaded size, not the theoretical maximum), else the model profile.
 * 3. The window given for models nobody knows: serve's `--window`.
 * 4. When the policy does not look windows up (picoclaw: "Current default when not explicitly
 *    configured: ContextWindow = MaxTokens * 4"): 4 × the reply reserve, the caller's (a request's
 *    `max_tokens` through serve, `--max-output`, `prepare`'s `maxOutputTokens`) else the policy's.
 * 5. The policy's own fallbacks without a window (tiancai's EffectiveTokenLimit, "else MaxTokens, else
 *    MaxMessages"): compaction at `budget.maxContextTokens`, else by message count; the window is then
 *    {@link UNBOUNDED_WINDOW}. A window configured as UNBOUNDED_WINDOW (serve's last step) says that no
 *    window binds, so these fallbacks apply to it too.
 * 6. Nothing: an UnknownModelError naming the nearest known model, never a guessed window (a guess
 *    either wastes the model or overflows it). The library, chat and config say so; serve, which cannot
 *    ask its client, sends the request unmanaged until an overflow names the limit.
 *
 * Whatever the step, the window is never more than the server says it serves, nor more than a limit an
 * overflow named for the model: past those the request only overflows; and when no step gives a window,
 * either is one (serve learns a model's window from its overflows). (Under picoclaw this cap is ctxkit's:
 * picoclaw never asks.)
 *
 * The reply reserve: the caller's, else the policy's; else the profile's (at most half the window when
 * the window is the profile's, a quarter otherwise: gpt-4's 8192 of 8192 would leave no room); else
 * {@link DEFAULT_MAX_OUTPUT_TOKENS}, at most a quarter. A reserve that does not fit the window is an
 * InvalidPolicyError.
 */
import { CONTEXT_WINDOW_PER_MAX_OUTPUT } from '../core/budget/context-window.ts';
import { InvalidPolicyError, UnknownModelError } from '../core/errors/index.ts';
import type { Policy } from '../core/policy/policy-schema.ts';
import { findModelProfile, type ModelProfile, suggestModelName } from './model-profiles.ts';

/**
 * Output reserved when neither the caller, the policy nor a profile says: digitorn's
 * `output_reserved: 4096`, never more than a quarter of the window (picoclaw's 4 × ratio read the
 * other way).
 */
export const DEFAULT_MAX_OUTPUT_TOKENS = 4_096;

/** The window of a session whose only limit is a message count: large enough never to bind. */
export const UNBOUNDED_WINDOW = 1_000_000_000;

/**
 * Which step of the rule gave the window. `served` and `learned` also mark a window cut down to what the
 * server serves or an overflow named; `max-context-tokens` and `unbounded` are step 5.
 */
export type WindowSource =
  | 'explicit'
  | 'served'
  | 'profile'
  | 'unknown-model-window'
  | 'max-output'
  | 'max-context-tokens'
  | 'unbounded'
  | 'learned';

export type MaxOutputSource = 'explicit' | 'profile' | 'default';

/** What the rule reads of a policy. */
export interface WindowPolicy {
  budget: Pick<
    Policy['budget'],
    'contextWindow' | 'maxOutputTokens' | 'detectWindow' | 'maxContextTokens' | 'maxContextTokensWhen'
  >;
  summarize: Pick<Policy['summarize'], 'maxMessages' | 'maxMessagesWhen'>;
}

/** What a door knows of the call. Unset: it does not know (or, for the window and reserve, the policy's). */
export interface WindowCall {
  model?: string | undefined;
  /** The caller's window for this call, instead of the policy's; 0: none configured. */
  contextWindow?: number | undefined;
  /** The caller's reply reserve for this call, instead of the policy's; 0: none. */
  maxOutputTokens?: number | undefined;
  /** The size the server says it serves the model with. */
  served?: number | undefined;
  /** A limit an overflow error named for the model. */
  learned?: number | undefined;
  /** The window of models nobody knows (serve's `--window`). */
  unknownModelWindow?: number | undefined;
}

export interface ChosenWindow {
  contextWindow: number;
  maxOutputTokens: number;
  windowSource: WindowSource;
  maxOutputSource: MaxOutputSource;
  profile: ModelProfile | undefined;
}

function positive(value: number | undefined): number | undefined {
  return value !== undefined && value > 0 ? value : undefined;
}

/** The rule above, step by step. Throws UnknownModelError (step 6) and InvalidPolicyError (the reserve). */
export function chooseContextWindow(policy: WindowPolicy, call: WindowCall = {}): ChosenWindow {
  const { budget, summarize } = policy;
  const model = call.model?.trim() || undefined;
  const profile = model === undefined ? undefined : findModelProfile(model);
  const configured = positive(call.contextWindow ?? budget.contextWindow);
  const reserve = positive(call.maxOutputTokens ?? budget.maxOutputTokens);
  const looksUp = budget.detectWindow !== false;
  const served = positive(call.served);

  const ownFallback: WindowSource | undefined =
    budget.maxContextTokens > 0 && budget.maxContextTokensWhen === 'no-window'
      ? 'max-context-tokens'
      : summarize.maxMessages > 0 && summarize.maxMessagesWhen === 'no-token-limit'
        ? 'unbounded'
        : undefined;
  // A configured UNBOUNDED_WINDOW says no window binds (serve's last step): the policy's fallbacks apply.
  const binds = configured !== undefined && (configured < UNBOUNDED_WINDOW || ownFallback === undefined);

  let found: { contextWindow: number; source: WindowSource } | undefined;
  if (configured !== undefined && binds) found = { contextWindow: configured, source: 'explicit' };
  else if (looksUp && served !== undefined) found = { contextWindow: served, source: 'served' };
  else if (looksUp && profile !== undefined)
    found = { contextWindow: profile.contextWindow, source: 'profile' };
  else if (positive(call.unknownModelWindow) !== undefined)
    found = { contextWindow: call.unknownModelWindow as number, source: 'unknown-model-window' };
  else if (!looksUp && reserve !== undefined)
    found = { contextWindow: reserve * CONTEXT_WINDOW_PER_MAX_OUTPUT, source: 'max-output' };
  else if (ownFallback !== undefined) found = { contextWindow: UNBOUNDED_WINDOW, source: ownFallback };
  const learned = positive(call.learned);
  // What the server serves or an overflow named is a window of its own when nothing else gave one.
  if (found === undefined && served !== undefined) found = { contextWindow: served, source: 'served' };
  if (found === undefined && learned !== undefined) found = { contextWindow: learned, source: 'learned' };
  if (found === undefined)
    throw new UnknownModelError(
      model ?? '(no model set)',
      model === undefined ? undefined : suggestModelName(model),
    );
  if (served !== undefined && served < found.contextWindow)
    found = { contextWindow: served, source: 'served' };
  if (learned !== undefined && learned < found.contextWindow)
    found = { contextWindow: learned, source: 'learned' };

  const { contextWindow, source } = found;
  const quarter = Math.max(1, Math.floor(contextWindow / CONTEXT_WINDOW_PER_MAX_OUTPUT));
  let maxOutputTokens: number;
  let maxOutputSource: MaxOutputSource;
  if (reserve !== undefined) {
    if (reserve >= contextWindow) {
      throw new InvalidPolicyError(
        'budget.maxOutputTokens',
        `must be smaller than the context window (${contextWindow}), got ${reserve}`,
        { contextWindow, maxOutputTokens: reserve },
      );
    }
    maxOutputTokens = reserve;
    maxOutputSource = 'explicit';
  } else if (profile !== undefined) {
    const cap = source === 'profile' ? Math.floor(contextWindow / 2) : quarter;
    maxOutputTokens = Math.min(profile.maxOutputTokens, cap);
    maxOutputSource = 'profile';
  } else {
    maxOutputTokens = Math.min(DEFAULT_MAX_OUTPUT_TOKENS, quarter);
    maxOutputSource = 'default';
  }
  return { contextWindow, maxOutputTokens, windowSource: source, maxOutputSource, profile };
}

/** The settings of the library's older entry point: the window and reserve, and whether to look up. */
export interface ContextWindowSettings {
  model?: string | undefined;
  /** 0 or unset: none configured. */
  contextWindow?: number | undefined;
  /** 0 or unset: from the profile, else the default. */
  maxOutputTokens?: number | undefined;
  /** `false` (picoclaw): never look the window up; it is 4 × maxOutputTokens unless set. Default true. */
  detectWindow?: boolean | undefined;
}

export interface ResolvedContextWindow extends ChosenWindow {
  /** Without a server, an overflow or tiancai's fallbacks, only these steps can answer. */
  windowSource: 'explicit' | 'profile' | 'max-output';
}

/** {@link chooseContextWindow} for a policy given as these settings alone (steps 1, 2, 4 and 6). */
export function resolveContextWindow(settings: ContextWindowSettings): ResolvedContextWindow {
  return chooseContextWindow(
    {
      budget: {
        contextWindow: settings.contextWindow ?? 0,
        maxOutputTokens: settings.maxOutputTokens ?? 0,
        detectWindow: settings.detectWindow !== false,
        maxContextTokens: 0,
        maxContextTokensWhen: 'always',
      },
      summarize: { maxMessages: 0, maxMessagesWhen: 'always' },
    },
    { model: settings.model },
  ) as ResolvedContextWindow;
}
