/**
 * A proxy in front of the fake provider server, with in-memory stores and a log captured in memory: for
 * tests that drive the proxy over real HTTP.
 *
 * The fake refuses what the real APIs refuse (Anthropic's tool pairing, empty content, cache breakpoints)
 * and, with a thinking signer of its own, thinking it did not issue or that came back changed. A proxy
 * that sends it such a request fails the test when the harness closes, whatever the test expected of the
 * answer, unless the test said it means to (`expectRefusals`).
 */
import { PRESETS } from '../../core/policy/index.ts';
import type { Policy } from '../../core/policy/policy-schema.ts';
import { type ContextManager, createContextManager } from '../../engine/context-manager.ts';
import type { BlobStore } from '../../store/blob-store.ts';
import { createMemoryBlobStore } from '../../store/memory-blob-store.ts';
import { createMemorySessionStore } from '../../store/memory-session-store.ts';
import type { SessionStore } from '../../store/session-store.ts';
import { createMemoryTraceStore, type TraceStore } from '../../store/trace-store.ts';
import {
  type FakeProviderServer,
  type FakeProviderServerOptions,
  startFakeProviderServer,
} from '../../testing/fake-provider-server.ts';
import { createThinkingSigner } from '../../testing/thinking-signer.ts';
import type { ProxyOptions } from '../proxy-options.ts';
import { type RunningProxy, startProxyServer } from '../start-proxy-server.ts';
import { capturingLogger } from './capturing-logger.ts';

export interface ProxyHarness {
  upstream: FakeProviderServer;
  proxy: RunningProxy;
  manager: ContextManager;
  store: SessionStore;
  blobs: BlobStore;
  trace: TraceStore;
  /** Every line the proxy logged (pino JSON). */
  logs: string[];
  close(): Promise<void>;
}

export interface ProxyHarnessOptions extends Partial<Omit<ProxyOptions, 'manager'>> {
  policy?: Policy;
  upstreamOptions?: FakeProviderServerOptions;
  /** The test sends the upstream requests it refuses on purpose: `close()` does not fail on them. */
  expectRefusals?: boolean;
}

export async function startProxyHarness(options: ProxyHarnessOptions = {}): Promise<ProxyHarness> {
  const { policy, upstreamOptions, expectRefusals, ...proxyOptions } = options;
  const upstream = await startFakeProviderServer({
    thinkingSigner: createThinkingSigner(),
    ...upstreamOptions,
  });
  const { logger, lines: logs } = capturingLogger();
  const store = createMemorySessionStore();
  const blobs = createMemoryBlobStore();
  const trace = createMemoryTraceStore();
  const manager = createContextManager({ policy: policy ?? PRESETS.default, store, blobs, trace });
  const proxy = await startProxyServer({
    manager,
    upstream: upstream.openAIBaseUrl,
    upstreamAnthropic: upstream.anthropicBaseUrl,
    logger,
    sessions: store,
    trace,
    ...proxyOptions,
  });
  return {
    upstream,
    proxy,
    manager,
    store,
    blobs,
    trace,
    logs,
    async close() {
      await proxy.close(0);
      await upstream.close();
      await manager.flushTrace();
      const refused = upstream.requests.flatMap((request) =>
        request.refusal === undefined ? [] : [`${request.path}: ${request.refusal}`],
      );
      if (refused.length > 0 && !expectRefusals)
        throw new Error(`the upstream refused what the proxy sent it:\n${refused.join('\n')}`);
    },
  };
}

/** POSTs JSON to the proxy and returns the response with its body read. */
export async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; text: string; json: unknown }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}
