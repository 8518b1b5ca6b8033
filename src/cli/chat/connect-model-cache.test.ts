import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeProviderServer, startFakeProviderServer } from '../../testing/fake-provider-server.ts';
import { anthropicReply } from '../../testing/fake-provider-server-replies.ts';
import { ROOT, runCtxkit } from '../testing/run-ctxkit.ts';
import { connectModel } from './connect-model.ts';

let server: FakeProviderServer;
beforeEach(async () => {
  server = await startFakeProviderServer();
});
afterEach(async () => {
  await server.close();
});

const SYSTEM = 'Work in small steps and check each one. '.repeat(300);

async function sentWith(promptCache: boolean | undefined): Promise<string> {
  server.enqueue(anthropicReply({ text: 'ok' }));
  const connection = await connectModel(
    {
      provider: 'anthropic',
      baseUrl: server.anthropicBaseUrl,
      model: 'claude-sonnet-4-6',
      ...(promptCache !== undefined && { promptCache }),
    },
    {},
  );
  await connection.client.complete({
    model: connection.model,
    system: SYSTEM,
    messages: [{ id: 'm0', seq: 0, role: 'user', parts: [{ type: 'text', text: 'hello' }], meta: {} }],
  });
  return JSON.stringify(server.requests.at(-1)?.body);
}

describe('ctxkit chat: prompt-cache breakpoints', () => {
  it('are placed on Anthropic requests unless --no-prompt-cache', async () => {
    expect(await sentWith(undefined)).toContain('"cache_control"');
    expect(await sentWith(true)).toContain('"cache_control"');
    expect(await sentWith(false)).not.toContain('"cache_control"');
  });

  it('--no-prompt-cache is a chat flag', async () => {
    const run = await runCtxkit(['chat', '--help'], { cwd: ROOT });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^\s+--no-prompt-cache\s/m);
  });
});
