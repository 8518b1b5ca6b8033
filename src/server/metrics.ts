/**
 * The proxy's counters, served at `GET /metrics` in Prometheus' text exposition format (version 0.0.4).
 *
 * Bounded by construction: every label takes its value from a fixed set declared with its counter (a
 * value outside it is counted as `other`), so no client input (a path, a model name, a session id) can
 * ever create a series.
 */
import type { LayerName } from '../core/edit.ts';
import type { WireFormatName } from './wire/wire-format.ts';

/** The `Content-Type` of the text exposition format. */
export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** What a label value becomes when it is not one of its label's values. */
const OTHER = 'other';

const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;
const FORMATS: readonly WireFormatName[] = ['openai', 'anthropic', 'responses'];
/** The routes requests are counted by (`/v1/*`: what is forwarded untouched; `/api/*`: the REST API). */
export const METRIC_ROUTES = [
  '/v1/chat/completions',
  '/chat/completions',
  '/v1/responses',
  '/responses',
  '/v1/messages',
  '/v1/*',
  '/api/*',
  '/openapi.json',
  '/healthz',
  '/metrics',
] as const;
export type MetricRoute = (typeof METRIC_ROUTES)[number] | typeof OTHER;
/** Every layer, checked against `LayerName` so a new one cannot be missed. */
const LAYERS = Object.keys({
  normalize: true,
  'truncate-old': true,
  clear: true,
  archive: true,
  trim: true,
  summarize: true,
  drop: true,
  'compress-text': true,
  emergency: true,
  snip: true,
  sync: true,
  restore: true,
  manual: true,
} satisfies Record<LayerName, true>);

/** The status class of an HTTP status (`2xx`…), `other` for anything outside 100–599. */
export function statusClass(status: number): string {
  const index = Math.floor(status / 100) - 1;
  return Number.isInteger(status) ? (STATUS_CLASSES[index] ?? OTHER) : OTHER;
}

/** The counted route of a request path: one of `METRIC_ROUTES`, else `other`. */
export function routeOf(path: string): MetricRoute {
  if (
    path === '/v1/chat/completions' ||
    path === '/chat/completions' ||
    path === '/v1/responses' ||
    path === '/responses' ||
    path === '/v1/messages'
  )
    return path;
  if (path === '/healthz' || path === '/metrics' || path === '/openapi.json') return path;
  if (path.startsWith('/api/')) return '/api/*';
  if (path.startsWith('/v1/')) return '/v1/*';
  return OTHER;
}

/** A label's value as the exposition format writes it between quotes. */
export function escapeLabelValue(value: string): string {
  return value.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n');
}

function escapeHelp(text: string): string {
  return text.replaceAll('\\', '\\\\').replaceAll('\n', '\\n');
}

/** A counter whose series are keyed by label values, each label from its own fixed set. */
export class Counter<L extends string> {
  readonly #series = new Map<string, { labels: readonly string[]; value: number }>();
  readonly #labels: readonly L[];
  readonly #allowed: ReadonlyMap<L, ReadonlySet<string>>;

  constructor(
    readonly name: string,
    readonly help: string,
    labels: { readonly [K in L]: readonly string[] },
  ) {
    if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*_total$/.test(name))
      throw new Error(`a counter's name must be a metric name ending in _total, got ${JSON.stringify(name)}`);
    this.#labels = Object.keys(labels) as L[];
    this.#allowed = new Map(this.#labels.map((label) => [label, new Set(labels[label])]));
  }

  /** Adds `by` (default 1; negative, non-finite or zero adds nothing) to the series of these labels. */
  inc(labels: { readonly [K in L]: string }, by = 1): void {
    if (!Number.isFinite(by) || by <= 0) return;
    const values = this.#labels.map((label) =>
      this.#allowed.get(label)?.has(labels[label]) ? labels[label] : OTHER,
    );
    const key = values.join('\u0000');
    const series = this.#series.get(key);
    if (series) series.value += by;
    else this.#series.set(key, { labels: values, value: by });
  }

  /** The value of one series (0 if never counted). */
  value(labels: { readonly [K in L]: string }): number {
    const key = this.#labels.map((label) => labels[label]).join('\u0000');
    return this.#series.get(key)?.value ?? 0;
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${escapeHelp(this.help)}`, `# TYPE ${this.name} counter`];
    const series = [...this.#series.values()].sort((a, b) =>
      a.labels.join('\u0000') < b.labels.join('\u0000') ? -1 : 1,
    );
    // A counter never counted still shows, at 0, when it has no labels.
    if (series.length === 0 && this.#labels.length === 0) lines.push(`${this.name} 0`);
    for (const { labels, value } of series) {
      const pairs = this.#labels.map((label, index) => `${label}="${escapeLabelValue(labels[index] ?? '')}"`);
      lines.push(`${this.name}${pairs.length > 0 ? `{${pairs.join(',')}}` : ''} ${value}`);
    }
    return lines.join('\n');
  }
}

export class ProxyMetrics {
  readonly requests = new Counter(
    'ctxkit_requests_total',
    'HTTP requests answered, by route and status class.',
    {
      route: METRIC_ROUTES,
      status: STATUS_CLASSES,
    },
  );
  readonly upstreamCalls = new Counter(
    'ctxkit_upstream_calls_total',
    'Calls to the upstream that it answered, by format, kind (model call or forwarded request) and status class.',
    { format: FORMATS, kind: ['model', 'forwarded'], status: STATUS_CLASSES },
  );
  readonly tokensSent = new Counter(
    'ctxkit_tokens_sent_total',
    'Input tokens of the model calls sent upstream (x-ctxkit-input-tokens), by format.',
    { format: FORMATS },
  );
  readonly tokensSaved = new Counter(
    'ctxkit_tokens_saved_total',
    "Input tokens the model calls saved against the client's own request (x-ctxkit-tokens-saved), by format.",
    { format: FORMATS },
  );
  readonly compactions = new Counter(
    'ctxkit_compactions_total',
    'Compactions finished, by layer and outcome (ok or failed).',
    { layer: LAYERS, outcome: ['ok', 'failed'] },
  );
  readonly overflowsRecovered = new Counter(
    'ctxkit_overflows_recovered_total',
    'Context overflows the proxy recovered from: the retry it sent succeeded, by format.',
    { format: FORMATS },
  );
  readonly readBackRounds = new Counter(
    'ctxkit_read_back_rounds_total',
    'Read-back rounds the proxy answered itself from the session store, by format.',
    { format: FORMATS },
  );

  /** A request answered. */
  request(path: string, status: number): void {
    this.requests.inc({ route: routeOf(path), status: statusClass(status) });
  }

  /** A model call answered by the upstream, with the tokens it sent and saved. */
  modelCall(format: WireFormatName, status: number, sent: number, saved: number): void {
    this.upstreamCall(format, 'model', status);
    this.tokensSent.inc({ format }, sent);
    this.tokensSaved.inc({ format }, saved);
  }

  /** An upstream call (a model call, or a request forwarded untouched). */
  upstreamCall(format: WireFormatName, kind: 'model' | 'forwarded', status: number): void {
    this.upstreamCalls.inc({ format, kind, status: statusClass(status) });
  }

  compaction(layer: LayerName, failed: boolean): void {
    this.compactions.inc({ layer, outcome: failed ? 'failed' : 'ok' });
  }

  overflowRecovered(format: WireFormatName): void {
    this.overflowsRecovered.inc({ format });
  }

  /** A read-back round: the upstream answered (2xx) with calls of the read-back tool only, answered here. */
  readBackRound(format: WireFormatName): void {
    this.readBackRounds.inc({ format });
    this.upstreamCall(format, 'model', 200);
  }

  /** Every counter in the text exposition format, ending with a newline. */
  render(): string {
    return `${[
      this.requests,
      this.upstreamCalls,
      this.tokensSent,
      this.tokensSaved,
      this.compactions,
      this.overflowsRecovered,
      this.readBackRounds,
    ]
      .map((counter) => counter.render())
      .join('\n')}\n`;
  }
}
