/**
 * The window a call is prepared with, and the reply reserve beside it, resolved afresh for every request
 * (a session's earlier request never decides this one's) by the one window rule every door follows
 * (`chooseContextWindow`, `resolve-context-window.ts`), with the session's policy and what serve knows:
 *
 * - the reply reserve the client set (`max_tokens`), for the rule's steps that read it (picoclaw's
 *   4 × the reserve, and the reserve itself);
 * - the window the upstream serves the model with, asked the way agents' clients ask (Ollama's
 *   `/api/show`, vLLM's `max_model_len`, llama.cpp's `/props`) and remembered per model for a while;
 *   hosted APIs that have none of these routes are not asked;
 * - a limit an overflow named for the model, which caps it from then on;
 * - `--window`, the window of models nobody knows (the rule's step 3).
 *
 * The rule's last step, nothing known, is serve's own: the request goes unmanaged (UNBOUNDED_WINDOW)
 * until an overflow names the limit, instead of the library's UnknownModelError (the client cannot be
 * asked for a window). A policy with fallbacks of its own without a window (tiancai's compaction at
 * MaxTokens) has them instead: the manager applies them to a call prepared with UNBOUNDED_WINDOW.
 */
import { UnknownModelError } from '../core/errors/index.ts';
import { detectServedContextWindow } from '../providers/detect-served-window.ts';
import {
  chooseContextWindow,
  UNBOUNDED_WINDOW,
  type WindowPolicy,
  type WindowSource,
} from '../providers/resolve-context-window.ts';
import { BoundedMap } from './bounded-map.ts';

/** How long an upstream's answer is trusted before it is asked again (a model may be reloaded). */
export const SERVED_WINDOW_TTL_MS = 10 * 60_000;
/** Models remembered per kind of fact: the names come from clients, so the maps are bounded. */
export const MAX_REMEMBERED_MODELS = 10_000;
/** Hosts of hosted APIs, which serve no window route: never asked. */
export const HOSTED_API_HOSTS: ReadonlySet<string> = new Set([
  'api.openai.com',
  'api.anthropic.com',
  'openrouter.ai',
  'api.deepseek.com',
  'api.groq.com',
  'api.mistral.ai',
  'api.together.xyz',
  'api.fireworks.ai',
  'generativelanguage.googleapis.com',
  'api.x.ai',
]);

/** What a call's window is asked with. */
export interface WindowQuestion {
  baseUrl: string;
  model: string;
  /** Sent with the questions to the upstream (its credentials). */
  headers: Record<string, string>;
  /** The reply reserve the client set. */
  maxOutputTokens?: number;
}

export interface CallWindow {
  /** UNBOUNDED_WINDOW when no window binds: unknown, or the policy's own fallbacks (tiancai). */
  contextWindow: number;
  maxOutputTokens: number;
  /** Nobody knows the model's window: the request is sent as it is. */
  unknown: boolean;
  /** The step of the window rule that gave the window (absent when unknown). */
  source?: WindowSource;
}

export class UpstreamWindows {
  readonly #asked = new BoundedMap<string, { at: number; window: Promise<number | undefined> }>(
    MAX_REMEMBERED_MODELS,
  );
  readonly #learned = new BoundedMap<string, { at: number; window: number }>(MAX_REMEMBERED_MODELS);
  readonly #warned = new BoundedMap<string, true>(MAX_REMEMBERED_MODELS);

  constructor(
    private readonly options: {
      fetch?: typeof fetch;
      /** The window of models nobody knows (`--window`). */
      fallback?: number;
      detect: boolean;
      clock?: () => number;
    },
  ) {}

  /**
   * The call's window and reply reserve, under the session's policy. Throws InvalidPolicyError when the
   * reply reserve does not fit the window.
   */
  async windowFor(call: WindowQuestion, policy: WindowPolicy): Promise<CallWindow> {
    const key = `${call.baseUrl}\u0000${call.model}`;
    const served = this.#detects(call.baseUrl)
      ? await this.#served(key, call.baseUrl, call.model, call.headers)
      : undefined;
    const asked = {
      model: call.model,
      ...(call.maxOutputTokens !== undefined && { maxOutputTokens: call.maxOutputTokens }),
    };
    try {
      const chosen = chooseContextWindow(policy, {
        ...asked,
        served,
        learned: this.#learnedWindow(key),
        unknownModelWindow: this.options.fallback,
      });
      return {
        contextWindow: chosen.contextWindow,
        maxOutputTokens: chosen.maxOutputTokens,
        unknown: false,
        source: chosen.windowSource,
      };
    } catch (error) {
      if (!UnknownModelError.isInstance(error)) throw error;
      // The reserve beside a window nobody knows: the rule's, for a window too large to bind.
      const { maxOutputTokens } = chooseContextWindow(policy, { ...asked, contextWindow: UNBOUNDED_WINDOW });
      return { contextWindow: UNBOUNDED_WINDOW, maxOutputTokens, unknown: true };
    }
  }

  /**
   * An overflow said the model's window is `window`: later calls use it, for as long as a served size is
   * trusted (SERVED_WINDOW_TTL_MS): a server reloaded with a larger window is not held to the old one.
   */
  learn(baseUrl: string, model: string, window: number): void {
    this.#learned.set(`${baseUrl}\u0000${model}`, { at: this.#now(), window });
  }

  #learnedWindow(key: string): number | undefined {
    const learned = this.#learned.get(key);
    if (learned === undefined) return undefined;
    if (this.#now() - learned.at < SERVED_WINDOW_TTL_MS) return learned.window;
    this.#learned.delete(key);
    return undefined;
  }

  #now(): number {
    return (this.options.clock ?? Date.now)();
  }

  /** Runs `warn` the first time a model's window is found unknown. */
  warnUnknown(model: string, warn: () => void): void {
    if (this.#warned.has(model)) return;
    this.#warned.set(model, true);
    warn();
  }

  #detects(baseUrl: string): boolean {
    if (!this.options.detect) return false;
    try {
      return !HOSTED_API_HOSTS.has(new URL(baseUrl).hostname);
    } catch {
      return false;
    }
  }

  #served(
    key: string,
    baseUrl: string,
    model: string,
    headers: Record<string, string>,
  ): Promise<number | undefined> {
    const now = this.#now();
    const cached = this.#asked.get(key);
    if (cached && now - cached.at < SERVED_WINDOW_TTL_MS) return cached.window;
    const window = detectServedContextWindow({
      baseUrl,
      model,
      headers,
      ...(this.options.fetch && { fetch: this.options.fetch }),
    }).catch(() => undefined);
    this.#asked.set(key, { at: now, window });
    return window;
  }
}
