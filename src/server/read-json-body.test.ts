import { describe, expect, it } from 'vitest';
import { readJsonBody } from './read-json-body.ts';

const post = (body: string | Uint8Array, headers: Record<string, string> = {}): Request =>
  new Request('http://proxy.test/v1/chat/completions', { method: 'POST', body, headers });

describe('readJsonBody', () => {
  it('reads a body as JSON', async () => {
    expect(await readJsonBody(post('{"model": "m", "messages": []}'), 1_000)).toEqual({
      ok: true,
      body: { model: 'm', messages: [] },
      text: '{"model": "m", "messages": []}',
    });
  });

  it('refuses a body over the bound (413), one that is not JSON, and one nested too deeply (400)', async () => {
    expect(await readJsonBody(post('x'.repeat(2_000)), 1_000)).toMatchObject({ ok: false, status: 413 });
    expect(await readJsonBody(post('{"model": '), 1_000)).toMatchObject({
      ok: false,
      status: 400,
      message: expect.stringMatching(/^the request body is not JSON: /),
    });
    const deep = `{"messages": [${'['.repeat(200)}${']'.repeat(200)}]}`;
    expect(await readJsonBody(post(deep), 10_000)).toEqual({
      ok: false,
      status: 400,
      message: `messages${'[0]'.repeat(127)}: nested deeper than 128 levels`,
      field: `messages${'[0]'.repeat(127)}`,
    });
  });

  it('decodes UTF-8 split across chunks', async () => {
    const bytes = new TextEncoder().encode('{"text": "héllo 🌍"}');
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const byte of bytes) controller.enqueue(Uint8Array.of(byte));
        controller.close();
      },
    });
    const request = new Request('http://proxy.test/', {
      method: 'POST',
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(await readJsonBody(request, 1_000)).toMatchObject({ ok: true, body: { text: 'héllo 🌍' } });
  });

  it('lets other requests be answered while it parses 16 MB of small messages', async () => {
    const messages = Array.from({ length: 400_000 }, (_, index) => ({
      role: index % 2 === 0 ? 'user' : 'assistant',
      content: `message ${index}`,
    }));
    const text = JSON.stringify({ model: 'gpt-4o', messages });
    let longest = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
    }, 1);
    try {
      last = performance.now();
      const read = await readJsonBody(post(text), 32 * 1024 * 1024);
      longest = Math.max(longest, performance.now() - last);
      expect(read).toEqual({ ok: true, body: JSON.parse(text), text });
    } finally {
      clearInterval(timer);
    }
    // JSON.parse and the depth check at once held the thread about a second.
    expect(longest).toBeLessThan(250);
  });
});
