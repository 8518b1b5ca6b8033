import { afterEach, describe, expect, it } from 'vitest';
import { READ_OFFLOADED_TOOL } from '../engine/offload-results.ts';
import { createMemorySessionStore } from '../store/memory-session-store.ts';
import type { SessionStore } from '../store/session-store.ts';
import { openAIErrors } from '../testing/fake-provider-server-errors.ts';
import { openAIReply } from '../testing/fake-provider-server-replies.ts';
import { checkHealth, describeStoreError } from './health-check.ts';
import {
  Counter,
  escapeLabelValue,
  METRICS_CONTENT_TYPE,
  ProxyMetrics,
  routeOf,
  statusClass,
} from './metrics.ts';
import { type ProxyHarness, postJson, startProxyHarness } from './testing/proxy-harness.ts';

const KEY = 'sk-test-metrics-0123456789';
let harness: ProxyHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function start(options: Parameters<typeof startProxyHarness>[0] = {}): Promise<ProxyHarness> {
  harness = await startProxyHarness(options);
  return harness;
}

/** The value of one sample line (`name{labels} value`) of an exposition, or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function scrape(h: ProxyHarness, headers: Record<string, string> = {}): Promise<string> {
  const response = await fetch(`${h.proxy.url}/metrics`, { headers });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe(METRICS_CONTENT_TYPE);
  return response.text();
}

describe('ProxyMetrics', () => {
  it('renders HELP and TYPE lines for every counter, each name ending in _total', () => {
    const text = new ProxyMetrics().render();
    const names = [...text.matchAll(/^# TYPE (\S+) counter$/gm)].map((match) => match[1]);
    expect(names).toEqual([
      'ctxkit_requests_total',
      'ctxkit_upstream_calls_total',
      'ctxkit_tokens_sent_total',
      'ctxkit_tokens_saved_total',
      'ctxkit_compactions_total',
      'ctxkit_overflows_recovered_total',
      'ctxkit_read_back_rounds_total',
    ]);
    for (const name of names)
      expect(text).toMatch(new RegExp(`^# HELP ${name} \\S.*\\n# TYPE ${name} counter$`, 'm'));
    expect(text.endsWith('\n')).toBe(true);
  });

  it('increments a series by its labels and keeps series apart', () => {
    const metrics = new ProxyMetrics();
    metrics.request('/v1/chat/completions', 200);
    metrics.request('/v1/chat/completions', 201);
    metrics.request('/v1/chat/completions', 503);
    metrics.modelCall('openai', 200, 1200, 300);
    metrics.modelCall('openai', 200, 800, 0);
    const text = metrics.render();
    expect(sample(text, 'ctxkit_requests_total{route="/v1/chat/completions",status="2xx"}')).toBe(2);
    expect(sample(text, 'ctxkit_requests_total{route="/v1/chat/completions",status="5xx"}')).toBe(1);
    expect(sample(text, 'ctxkit_tokens_sent_total{format="openai"}')).toBe(2000);
    expect(sample(text, 'ctxkit_tokens_saved_total{format="openai"}')).toBe(300);
    expect(sample(text, 'ctxkit_upstream_calls_total{format="openai",kind="model",status="2xx"}')).toBe(2);
  });

  it('bounds labels to their fixed values: anything else is counted as other', () => {
    const metrics = new ProxyMetrics();
    for (let index = 0; index < 50; index++) metrics.request(`/attacker/${index}"\n`, 404);
    metrics.request('/v1/models', 200);
    metrics.request('/v1/a/b/c', 200);
    const text = metrics.render();
    expect(sample(text, 'ctxkit_requests_total{route="other",status="4xx"}')).toBe(50);
    expect(sample(text, 'ctxkit_requests_total{route="/v1/*",status="2xx"}')).toBe(2);
    expect(text).not.toContain('attacker');
    expect(routeOf('/healthz')).toBe('/healthz');
    expect(routeOf('/api/sessions/abc')).toBe('/api/*');
    expect(statusClass(99)).toBe('other');
    expect(statusClass(600)).toBe('other');
    expect(statusClass(404)).toBe('4xx');
  });

  it('escapes label values and help text as the exposition format says', () => {
    expect(escapeLabelValue('a\\b"c\nd')).toBe('a\\\\b\\"c\\nd');
    const counter = new Counter('odd_total', 'help with \\ and\nnewline', { name: ['a"b\\c\nd'] });
    counter.inc({ name: 'a"b\\c\nd' }, 2);
    expect(counter.render()).toBe(
      [
        '# HELP odd_total help with \\\\ and\\nnewline',
        '# TYPE odd_total counter',
        'odd_total{name="a\\"b\\\\c\\nd"} 2',
      ].join('\n'),
    );
    expect(() => new Counter('not_a_counter', 'x', {})).toThrow(/_total/);
    const unlabelled = new Counter('plain_total', 'x', {});
    expect(unlabelled.render()).toContain('\nplain_total 0');
    unlabelled.inc({}, Number.NaN);
    unlabelled.inc({}, -3);
    expect(unlabelled.render()).toContain('\nplain_total 0');
  });
});

describe('GET /metrics', () => {
  it('counts the requests, upstream calls, tokens sent and saved, a recovered overflow and its compaction', async () => {
    const h = await start({ contextWindow: 128_000, detectWindow: false });
    h.upstream.enqueue(
      openAIErrors.contextLengthExceeded({ limit: 3_000, requested: 9_000 }),
      openAIReply({ content: 'ok' }),
    );
    const notes = Array.from({ length: 14 }, (_, index) => [
      {
        role: 'user',
        content: `note ${index}: ${Array.from({ length: 150 }, (_, word) => `w${index}_${word}`).join(' ')}`,
      },
      { role: 'assistant', content: `noted ${index}` },
    ]).flat();
    const response = await postJson(
      `${h.proxy.url}/v1/chat/completions`,
      { model: 'gpt-4o', messages: [...notes, { role: 'user', content: 'what was in note 13?' }] },
      { authorization: `Bearer ${KEY}` },
    );
    expect(response.status).toBe(200);
    const sent = Number(response.headers.get('x-ctxkit-input-tokens'));
    const saved = Number(response.headers.get('x-ctxkit-tokens-saved'));
    expect(saved).toBeGreaterThan(0);

    const text = await scrape(h);
    expect(sample(text, 'ctxkit_requests_total{route="/v1/chat/completions",status="2xx"}')).toBe(1);
    expect(sample(text, 'ctxkit_upstream_calls_total{format="openai",kind="model",status="4xx"}')).toBe(1);
    expect(sample(text, 'ctxkit_upstream_calls_total{format="openai",kind="model",status="2xx"}')).toBe(1);
    expect(sample(text, 'ctxkit_tokens_sent_total{format="openai"}')).toBe(sent);
    expect(sample(text, 'ctxkit_tokens_saved_total{format="openai"}')).toBe(saved);
    expect(sample(text, 'ctxkit_overflows_recovered_total{format="openai"}')).toBe(1);
    const compactions = [
      ...text.matchAll(/^ctxkit_compactions_total\{layer="[a-z-]+",outcome="ok"\} (\d+)$/gm),
    ];
    expect(compactions.reduce((sum, match) => sum + Number(match[1]), 0)).toBeGreaterThan(0);
    // The scrape itself is counted by the next one.
    expect(sample(await scrape(h), 'ctxkit_requests_total{route="/metrics",status="2xx"}')).toBe(1);
  });

  it('counts a read-back round and a forwarded request', async () => {
    const h = await start({ contextWindow: 16_000, detectWindow: false });
    const lines = Array.from({ length: 4000 }, (_, index) => `line ${index}: value_${index * 7} ok`);
    lines[2345] = 'line 2345: NEEDLE_7f3a the answer is 42';
    h.upstream.enqueue(
      (request) => {
        const ref = /large_tool_results\/[A-Za-z0-9_-]+/.exec(JSON.stringify(request.body))?.[0];
        return openAIReply({
          content: null,
          toolCalls: [
            {
              id: 'call_rb',
              name: READ_OFFLOADED_TOOL,
              arguments: JSON.stringify({ ref, search: 'NEEDLE' }),
            },
          ],
        });
      },
      openAIReply({ content: 'found it' }),
    );
    const response = await postJson(
      `${h.proxy.url}/v1/chat/completions`,
      {
        model: 'gpt-4o-mini',
        messages: [
          { role: 'user', content: 'Find the needle in the log.' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_log', arguments: '{}' } }],
          },
          { role: 'tool', tool_call_id: 'call_1', content: lines.join('\n') },
        ],
      },
      { authorization: `Bearer ${KEY}` },
    );
    expect(response.status).toBe(200);
    await fetch(`${h.proxy.url}/v1/models`, { headers: { authorization: `Bearer ${KEY}` } });
    const text = await scrape(h);
    expect(sample(text, 'ctxkit_read_back_rounds_total{format="openai"}')).toBe(1);
    expect(sample(text, 'ctxkit_upstream_calls_total{format="openai",kind="model",status="2xx"}')).toBe(2);
    expect(text).toMatch(
      /^ctxkit_upstream_calls_total\{format="openai",kind="forwarded",status="\dxx"\} 1$/m,
    );
    expect(text).toMatch(/^ctxkit_requests_total\{route="\/v1\/\*",status="\dxx"\} 1$/m);
  });

  it('asks for a token when the proxy has tokens', async () => {
    const token = 'metrics-token-0123456789';
    const h = await start({ tokens: [token] });
    const refused = await fetch(`${h.proxy.url}/metrics`);
    expect(refused.status).toBe(401);
    expect(await refused.text()).not.toContain('ctxkit_requests_total');
    const wrong = await fetch(`${h.proxy.url}/metrics`, {
      headers: { authorization: 'Bearer not-the-token-at-all' },
    });
    expect(wrong.status).toBe(401);
    const text = await scrape(h, { 'x-ctxkit-token': token });
    expect(sample(text, 'ctxkit_requests_total{route="/metrics",status="4xx"}')).toBe(2);
    expect(await scrape(h, { authorization: `Bearer ${token}` })).toContain(
      '# TYPE ctxkit_requests_total counter',
    );
  });

  it('refuses a cross-site browser request to a token-less proxy', async () => {
    const h = await start();
    const response = await fetch(`${h.proxy.url}/metrics`, { headers: { origin: 'https://evil.example' } });
    expect(response.status).toBe(403);
  });
});

/** A store whose reads fail (or hang) as a broken database's would. */
function failingStore(failure: 'throw' | 'hang'): SessionStore {
  const inner = createMemorySessionStore();
  const broken = () =>
    failure === 'throw'
      ? Promise.reject(
          Object.assign(new Error('connect ECONNREFUSED postgres://ctx:hunter2@db:5432/x\u001b[31m'), {
            code: 'ECONNREFUSED',
          }),
        )
      : new Promise<never>(() => {});
  return { ...inner, list: broken, load: broken };
}

describe('GET /healthz', () => {
  it('says ok when the session store answers', async () => {
    const h = await start();
    const response = await fetch(`${h.proxy.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
  });

  it('answers 503 naming the session store when it fails, without its secrets', async () => {
    const h = await start({ sessions: failingStore('throw') });
    const response = await fetch(`${h.proxy.url}/healthz`);
    expect(response.status).toBe(503);
    const body = (await response.json()) as { ok: boolean; error: string };
    expect(body.ok).toBe(false);
    expect(body.error).toMatch(/^session store: ECONNREFUSED: connect ECONNREFUSED/);
    expect(body.error).not.toContain('hunter2');
    expect(body.error).not.toContain('\u001b');
    expect(sample(await scrape(h), 'ctxkit_requests_total{route="/healthz",status="5xx"}')).toBe(1);
  });

  it('answers 503 when the store does not answer within the timeout', async () => {
    expect(await checkHealth(failingStore('hang'), 50)).toEqual({
      ok: false,
      error: 'session store: no answer within 50 ms',
    });
  });

  it('loads a sentinel id when the store cannot list', async () => {
    const store = createMemorySessionStore();
    let loaded: string | undefined;
    const noList = {
      ...store,
      list: undefined,
      load: async (id: string) => {
        loaded = id;
        return undefined;
      },
    } as unknown as SessionStore;
    expect(await checkHealth(noList)).toEqual({ ok: true });
    expect(loaded).toBeDefined();
  });

  it('describes an error without credentials or control characters, bounded', () => {
    expect(describeStoreError(new Error('bad password=s3cret; see https://u:p@host/db'))).toBe(
      'bad password=<redacted> see https://<credentials>@host/db',
    );
    expect(describeStoreError(new Error('x'.repeat(500))).length).toBeLessThanOrEqual(201);
    expect(describeStoreError('line\nbreak')).toBe('line\\u000abreak');
  });
});
