import { CONTEXT_WINDOW_PER_MAX_OUTPUT } from '../core/budget/context-window.ts';
import { InvalidPolicyError, UnknownModelError } from '../core/errors/index.ts';
import { findModelProfile, type ModelProfile, suggestModelName } from './model-profiles.ts';

/**
 * The window and output reservation a session runs with. ContextWindow and MaxTokens are distinct
 * settings (picoclaw): the window is the model's input capacity, max output what is reserved from
 * it for the reply.
 */

/**
 * Output reserved when neither the policy nor a profile says: digitorn's `output_reserved: 4096`,
 * never more than a quarter of the window (picoclaw's 4 × ratio read the other way).
 */
export const DEFAULT_MAX_OUTPUT_TOKENS = 4_096;

export interface ContextWindowSettings {
  model?: string | undefined;
  /** 0 or unset: look it up. */
  contextWindow?: number | undefined;
  /** 0 or unset: from the profile, else the default. */
  maxOutputTokens?: number | undefined;
  /** `false` (picoclaw): never look the window up; it is 4 × maxOutputTokens unless set. Default true. */
  detectWindow?: boolean | undefined;
}

export interface ResolvedContextWindow {
  contextWindow: number;
  maxOutputTokens: number;
  windowSource: 'explicit' | 'profile' | 'max-output';
  maxOutputSource: 'explicit' | 'profile' | 'default';
  profile: ModelProfile | undefined;
}

function positive(value: number | undefined): number | undefined {
  return value !== undefined && value > 0 ? value : undefined;
}

/**
 * 1. An explicit window wins.
 * 2. Window 0/unset: the model profile's window (unless detectWindow is false).
 * 3. Only max output known: 4 × max output (picoclaw: "ContextWindow = MaxTokens * 4").
 * 4. Otherwise: UnknownModelError with the nearest known name; never a silent default, because a
 *    guessed window either wastes the model or overflows it.
 * Max output: explicit, else the profile's (at most half the profile's window, at most a quarter of
 * a window set some other way), else {@link DEFAULT_MAX_OUTPUT_TOKENS} (at most a quarter).
 */
export function resolveContextWindow(settings: ContextWindowSettings): ResolvedContextWindow {
  const model = settings.model?.trim() || undefined;
  const profile = model === undefined ? undefined : findModelProfile(model);
  const explicitWindow = positive(settings.contextWindow);
  const explicitOutput = positive(settings.maxOutputTokens);
  const detect = settings.detectWindow !== false;

  let contextWindow: number;
  let windowSource: ResolvedContextWindow['windowSource'];
  if (explicitWindow !== undefined) {
    contextWindow = explicitWindow;
    windowSource = 'explicit';
  } else if (detect && profile !== undefined) {
    contextWindow = profile.contextWindow;
    windowSource = 'profile';
  } else if (explicitOutput !== undefined) {
    contextWindow = explicitOutput * CONTEXT_WINDOW_PER_MAX_OUTPUT;
    windowSource = 'max-output';
  } else if (profile !== undefined) {
    contextWindow = profile.contextWindow;
    windowSource = 'profile';
  } else {
    throw new UnknownModelError(
      model ?? '(no model set)',
      model === undefined ? undefined : suggestModelName(model),
    );
  }

  let maxOutputTokens: number;
  let maxOutputSource: ResolvedContextWindow['maxOutputSource'];
  const quarter = Math.max(1, Math.floor(contextWindow / CONTEXT_WINDOW_PER_MAX_OUTPUT));
  if (explicitOutput !== undefined) {
    if (explicitOutput >= contextWindow) {
      throw new InvalidPolicyError(
        'budget.maxOutputTokens',
        `must be smaller than the context window (${contextWindow}), got ${explicitOutput}`,
      );
    }
    maxOutputTokens = explicitOutput;
    maxOutputSource = 'explicit';
  } else if (profile !== undefined) {
    // A reservation of the whole window (gpt-4: 8192 of 8192) would leave no room for history.
    const cap = windowSource === 'profile' ? Math.floor(contextWindow / 2) : quarter;
    maxOutputTokens = Math.min(profile.maxOutputTokens, cap);
    maxOutputSource = 'profile';
  } else {
    maxOutputTokens = Math.min(DEFAULT_MAX_OUTPUT_TOKENS, quarter);
    maxOutputSource = 'default';
  }
  return { contextWindow, maxOutputTokens, windowSource, maxOutputSource, profile };
}
