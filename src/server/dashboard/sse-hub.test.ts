import { afterEach, expect, it } from 'vitest';
import { type ProxyHarness, startProxyHarness } from '../testing/proxy-harness.ts';
import { MAX_EVENT_STREAMS_PER_OWNER } from './sse-hub.ts';

let h: ProxyHarness | undefined;
const aborts: AbortController[] = [];
afterEach(async () => {
  for (const abort of aborts.splice(0)) abort.abort();
  await h?.close();
  h = undefined;
});

async function openStream(url: string, key: string): Promise<number> {
  const abort = new AbortController();
  aborts.push(abort);
  const response = await fetch(`${url}/api/events`, {
    headers: { authorization: `Bearer ${key}` },
    signal: abort.signal,
  });
  if (response.status !== 200) await response.body?.cancel();
  return response.status;
}

it("keeps one client from taking every event stream: another's still opens, and a closed one frees its slot", async () => {
  h = await startProxyHarness();
  const url = h.proxy.url;
  const mine: number[] = [];
  for (let index = 0; index < MAX_EVENT_STREAMS_PER_OWNER; index++)
    mine.push(await openStream(url, 'sk-test-OWNER-A-0123456789'));
  expect(mine.every((status) => status === 200)).toBe(true);
  expect(await openStream(url, 'sk-test-OWNER-A-0123456789')).toBe(503);
  expect(await openStream(url, 'sk-test-OWNER-B-0123456789')).toBe(200);
  // One of A's closes: A may open one again.
  aborts[0]?.abort();
  await expect.poll(() => openStream(url, 'sk-test-OWNER-A-0123456789')).toBe(200);
});
