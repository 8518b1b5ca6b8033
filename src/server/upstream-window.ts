/**
 * The window a call is prepared with, and the reply reserve beside it, resolved afresh for every request
 * (a session's earlier request never decides this one's):
 *
 * 1. the window the upstream serves the model with, asked the way agents' clients ask (Ollama's
 *    `/api/show`, vLLM's `max_model_len`, llama.cpp's `/props`) and remembered per model for a while;
 *    hosted APIs that have none of these routes are not asked;
 * 2. else the model profile table;
 * 3. else the configured fallback (`--window`);
 * 4. else unknown: the request goes unmanaged (UNBOUNDED_WINDOW) until an overflow names the limit.
 *
 * A limit an overflow named replaces what was known, for that model, from then on. A policy that sets
 * `budget.contextWindow` caps every model.
 */
import { UNBOUNDED_WINDOW } from '../engine/call-context.ts';
import { detectServedContextWindow } from '../providers/detect-served-window.ts';
import { findModelProfile } from '../providers/model-profiles.ts';
import { resolveContextWindow } from '../providers/resolve-context-window.ts';
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
  contextWindow: number;
  maxOutputTokens: number;
  /** Nobody knows the model's window: the request is sent as it is. */
  unknown: boolean;
}

export class UpstreamWindows {
  readonly #asked = new BoundedMap<string, { at: number; window: Promise<number | undefined> }>(
    MAX_REMEMBERED_MODELS,
  );
  readonly #learned = new BoundedMap<string, number>(MAX_REMEMBERED_MODELS);
  readonly #warned = new BoundedMap<string, true>(MAX_REMEMBERED_MODELS);

  constructor(
    private readonly options: {
      fetch?: typeof fetch;
      /** The window of models nobody else knows (`--window`). */
      fallback?: number;
      detect: boolean;
      clock?: () => number;
    },
  ) {}

  /**
   * The call's window and reply reserve. `policy` is the manager's budget (a positive `contextWindow`
   * caps every model; `maxOutputTokens` is the reserve when the client sets none). Throws
   * InvalidPolicyError when the client's reserve does not fit the window.
   */
  async windowFor(
    call: WindowQuestion,
    policy: { contextWindow: number; maxOutputTokens: number },
  ): Promise<CallWindow> {
    const key = `${call.baseUrl}\u0000${call.model}`;
    const served = this.#detects(call.baseUrl)
      ? await this.#served(key, call.baseUrl, call.model, call.headers)
      : undefined;
    const learned = this.#learned.get(key);
    const known = minOf(
      minOf(served ?? findModelProfile(call.model)?.contextWindow ?? this.options.fallback, learned),
      policy.contextWindow > 0 ? policy.contextWindow : undefined,
    );
    const contextWindow = known ?? UNBOUNDED_WINDOW;
    const resolved = resolveContextWindow({
      model: call.model,
      contextWindow,
      maxOutputTokens:
        call.maxOutputTokens ?? (policy.maxOutputTokens > 0 ? policy.maxOutputTokens : undefined),
    });
    return { contextWindow, maxOutputTokens: resolved.maxOutputTokens, unknown: known === undefined };
  }

  /** An overflow said the model's window is `window`: later calls use it. */
  learn(baseUrl: string, model: string, window: number): void {
    this.#learned.set(`${baseUrl}\u0000${model}`, window);
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
    const now = (this.options.clock ?? Date.now)();
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

function minOf(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.min(a, b);
}
