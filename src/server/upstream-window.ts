/**
 * The window a model really has, asked of the upstream the way agents' clients ask (Ollama's
 * `/api/show`, vLLM's `max_model_len`, llama.cpp's `/props`), remembered per model; then the profile
 * table (left to the manager); then the configured window. A window learned from an overflow's figures
 * replaces what the upstream said.
 */
import { detectServedContextWindow } from '../providers/detect-served-window.ts';
import { findModelProfile } from '../providers/model-profiles.ts';

/** How long an upstream's answer is trusted before it is asked again (a model may be reloaded). */
export const SERVED_WINDOW_TTL_MS = 10 * 60_000;

export class UpstreamWindows {
  readonly #asked = new Map<string, { at: number; window: Promise<number | undefined> }>();
  readonly #learned = new Map<string, number>();
  readonly #warned = new Set<string>();

  constructor(
    private readonly options: {
      fetch?: typeof fetch;
      fallback?: number;
      detect: boolean;
      clock?: () => number;
    },
  ) {}

  /** The window to prepare with; undefined leaves it to the manager (the profile table, the policy). */
  async windowFor(
    baseUrl: string,
    model: string,
    headers: Record<string, string>,
  ): Promise<number | undefined> {
    const key = `${baseUrl}\u0000${model}`;
    const learned = this.#learned.get(key);
    const served = this.options.detect ? await this.#served(key, baseUrl, model, headers) : undefined;
    const known = served ?? (findModelProfile(model) ? undefined : this.options.fallback);
    if (learned !== undefined) return known === undefined ? learned : Math.min(learned, known);
    return known;
  }

  /** Runs `warn` the first time a model's window is found unknown. */
  warnUnknown(model: string, warn: () => void): void {
    if (this.#warned.has(model)) return;
    this.#warned.add(model);
    warn();
  }

  /** An overflow said the model's window is `window`: later calls use it. */
  learn(baseUrl: string, model: string, window: number): void {
    this.#learned.set(`${baseUrl}\u0000${model}`, window);
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
