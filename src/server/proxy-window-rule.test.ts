/**
 * serve's door to the window rule (`chooseContextWindow`), driven by the official `openai` and
 * `@anthropic-ai/sdk` clients over HTTP: the window each request is prepared with, as the proxy says it
 * in `x-ctxkit-context-window` (absent when the request went unmanaged).
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { PRESETS } from '../core/policy/index.ts';
import type { Policy } from '../core/policy/policy-schema.ts';
import { replyFromMessage } from '../testing/fake-provider-server-message-reply.ts';
import type { FakeServedWindows } from '../testing/fake-provider-server-windows.ts';
import { RESPONSE_HEADERS } from './proxy-responses.ts';
import { type ProxyHarness, startProxyHarness } from './testing/proxy-harness.ts';

const UNKNOWN_MODEL = 'my-local-model';
const UNKNOWN_WARNING = 'the window of this model is unknown';

let h: ProxyHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function serve(
  policy: Policy,
  options: { window?: number; served?: FakeServedWindows } = {},
): Promise<ProxyHarness> {
  h = await startProxyHarness({
    policy,
    ...(options.window !== undefined && { contextWindow: options.window }),
    upstreamOptions: {
      fallback: replyFromMessage({ parts: [{ type: 'text', text: 'ok' }] }),
      ...(options.served && { servedWindows: options.served }),
    },
  });
  return h;
}

/** The window header of one call through each client; `null` when the request went unmanaged. */
async function windowsSeen(
  proxy: ProxyHarness,
  model: string,
  maxTokens: number | undefined,
): Promise<{ openai: string | null; anthropic: string | null }> {
  const openai = new OpenAI({ apiKey: 'sk-test', baseURL: `${proxy.proxy.url}/v1`, maxRetries: 0 });
  const anthropic = new Anthropic({ apiKey: 'sk-ant-test', baseURL: proxy.proxy.url, maxRetries: 0 });
  const viaOpenAI = await openai.chat.completions
    .create({
      model,
      messages: [{ role: 'user', content: 'hello' }],
      ...(maxTokens !== undefined && { max_tokens: maxTokens }),
    })
    .withResponse();
  const viaAnthropic = await anthropic.messages
    .create({ model, max_tokens: maxTokens ?? 1_024, messages: [{ role: 'user', content: 'hello' }] })
    .withResponse();
  return {
    openai: viaOpenAI.response.headers.get(RESPONSE_HEADERS.contextWindow),
    anthropic: viaAnthropic.response.headers.get(RESPONSE_HEADERS.contextWindow),
  };
}

describe('serve: the window rule', () => {
  it('picoclaw, no window configured: 4 × the max_tokens the client sends (else 4 × MaxTokens)', async () => {
    const proxy = await serve(PRESETS.picoclaw);
    expect(await windowsSeen(proxy, UNKNOWN_MODEL, 2_048)).toEqual({ openai: '8192', anthropic: '8192' });
    // A known model's profile is not looked up either: "ContextWindow = MaxTokens * 4".
    expect(await windowsSeen(proxy, 'gpt-4o', 4_096)).toEqual({ openai: '16384', anthropic: '16384' });
    const openai = new OpenAI({ apiKey: 'sk-test', baseURL: `${proxy.proxy.url}/v1`, maxRetries: 0 });
    const withoutMaxTokens = await openai.chat.completions
      .create({ model: UNKNOWN_MODEL, messages: [{ role: 'user', content: 'hello' }] })
      .withResponse();
    expect(withoutMaxTokens.response.headers.get(RESPONSE_HEADERS.contextWindow)).toBe(String(4 * 32_768));
    expect(proxy.logs.filter((line) => line.includes(UNKNOWN_WARNING))).toEqual([]);
  });

  it('any other preset, unknown model and no window: unmanaged, with one warning, max_tokens or not', async () => {
    for (const preset of ['default', 'deepagents'] as const) {
      const proxy = await serve(PRESETS[preset]);
      expect(await windowsSeen(proxy, UNKNOWN_MODEL, 2_048)).toEqual({ openai: null, anthropic: null });
      const sent = proxy.upstream.requests.filter((request) => request.format === 'openai');
      expect(sent[0]?.body).toEqual({
        model: UNKNOWN_MODEL,
        messages: [{ role: 'user', content: 'hello' }],
        max_tokens: 2_048,
      });
      expect(proxy.logs.filter((line) => line.includes(UNKNOWN_WARNING))).toHaveLength(1);
      await proxy.close();
      h = undefined;
    }
  });

  it('--window is the window of models nobody knows: after the profile, before picoclaw’s 4 ×', async () => {
    const proxy = await serve(PRESETS.default, { window: 16_000 });
    expect(await windowsSeen(proxy, UNKNOWN_MODEL, 2_048)).toEqual({ openai: '16000', anthropic: '16000' });
    expect((await windowsSeen(proxy, 'gpt-4o', 2_048)).openai).toBe('128000');
  });

  it('a policy window wins over the profile; what the server serves caps every step', async () => {
    const configured = { ...PRESETS.default, budget: { ...PRESETS.default.budget, contextWindow: 64_000 } };
    const served = { vllmModels: [{ id: UNKNOWN_MODEL, maxModelLen: 12_000 }] };
    let proxy = await serve(configured);
    expect((await windowsSeen(proxy, 'claude-sonnet-4-6', 2_048)).anthropic).toBe('64000');
    await proxy.close();
    proxy = await serve(configured, { served });
    expect(await windowsSeen(proxy, UNKNOWN_MODEL, 2_048)).toEqual({ openai: '12000', anthropic: '12000' });
    await proxy.close();
    // picoclaw's 4 × 8,192 is more than the server serves the model with.
    proxy = await serve(PRESETS.picoclaw, { served });
    expect(await windowsSeen(proxy, UNKNOWN_MODEL, 2_048)).toEqual({ openai: '8192', anthropic: '8192' });
    expect((await windowsSeen(proxy, UNKNOWN_MODEL, 8_192)).openai).toBe('12000');
  });

  it('tiancai without a window: managed by its own fallback (compaction at MaxTokens), not unmanaged', async () => {
    const proxy = await serve(PRESETS.tiancai);
    const seen = await windowsSeen(proxy, UNKNOWN_MODEL, 2_048);
    expect(seen).toEqual({ openai: null, anthropic: null });
    expect(proxy.logs.filter((line) => line.includes(UNKNOWN_WARNING))).toEqual([]);
  });
});
