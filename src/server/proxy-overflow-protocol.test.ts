/**
 * Overflows in a row through `ctxkit serve` follow the session's policy as the library does (one
 * protocol, `retryAfterOverflow`): cowagent summarizes to memory and trims, sends again, and at its last
 * resort clears the whole context, passes the upstream's error on and starts the next request afresh.
 */
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { PRESETS } from '../core/policy/presets/index.ts';
import { openAIErrors } from '../testing/fake-provider-server-errors.ts';
import { openAIReply } from '../testing/fake-provider-server-replies.ts';
import { type ProxyHarness, startProxyHarness } from './testing/proxy-harness.ts';

let harness: ProxyHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** Turns whose user texts are past cowagent's 10k-character emergency cap. */
function longConversation(): OpenAI.ChatCompletionMessageParam[] {
  return Array.from({ length: 4 }, (_, turn) => [
    { role: 'user' as const, content: `paste ${turn}: ${'text of the paste '.repeat(900)}` },
    { role: 'assistant' as const, content: `Read paste ${turn}.` },
  ]).flat();
}

describe('serve: overflows in a row, by the session policy', () => {
  it('cowagent: trims and resends, then clears the whole context; the error reaches the client; the next request starts afresh', async () => {
    harness = await startProxyHarness({
      policy: PRESETS.cowagent,
      contextWindow: 128_000,
      detectWindow: false,
      expectRefusals: true,
    });
    const overflow = () => openAIErrors.contextLengthExceeded({ limit: 128_000, requested: 131_000 });
    harness.upstream.enqueue(overflow(), overflow(), openAIReply({ content: 'fresh start' }));
    const client = new OpenAI({ baseURL: `${harness.proxy.url}/v1`, apiKey: 'sk-test', maxRetries: 0 });
    const history = [...longConversation(), { role: 'user' as const, content: 'Compare the pastes.' }];

    const failed = await client.chat.completions
      .create({ model: 'gpt-4o', messages: history })
      .catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(OpenAI.BadRequestError);
    expect((failed as InstanceType<typeof OpenAI.BadRequestError>).message).toMatch(/maximum context length/);
    const sent = harness.upstream.requests.filter((request) => request.format === 'openai');
    // The request, then the trimmed retry (pastes capped); the third overflow never happens: cleared.
    expect(sent).toHaveLength(2);
    expect(sent[1]?.rawBody.length).toBeLessThan((sent[0]?.rawBody.length ?? 0) * 0.8);

    const next = await client.chat.completions.create({
      model: 'gpt-4o',
      messages: [...history, { role: 'user', content: 'Start over: what is 2 + 2?' }],
    });
    expect(next.choices[0]?.message.content).toBe('fresh start');
    const last = harness.upstream.requests.filter((request) => request.format === 'openai').at(-1);
    const body = last?.body as { messages: { role: string; content: string }[] } | undefined;
    expect(body?.messages.map((message) => message.content)).toEqual(['Start over: what is 2 + 2?']);
  });
});
