import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeProviderServer, startFakeProviderServer } from '../testing/fake-provider-server.ts';
import { detectServedContextWindow, MAX_PLAUSIBLE_CONTEXT_WINDOW } from './detect-served-window.ts';

let server: FakeProviderServer;

beforeEach(async () => {
  server = await startFakeProviderServer();
});
afterEach(async () => {
  await server.close();
});

const detect = (model: string, baseUrl = server.openAIBaseUrl) =>
  detectServedContextWindow({ baseUrl, model });
const asked = () => server.requests.map((request) => `${request.method} ${request.path}`);

describe('detectServedContextWindow: Ollama', () => {
  it("prefers the num_ctx the model is loaded with over the model's maximum", async () => {
    server.setServedWindows({
      ollamaShow: { 'llama3.2:latest': { contextLength: 131_072, numCtx: 8_192 } },
      ollamaPs: [{ model: 'llama3.2', contextLength: 4_096 }],
    });
    expect(await detect('llama3.2')).toBe(8_192);
    // The native API is at the root, not under the OpenAI-compatible /v1.
    expect(asked()).toEqual(['POST /api/show']);
    expect(server.requests[0]?.body).toEqual({ model: 'llama3.2' });
  });

  it('without num_ctx, takes the context the loaded model has (/api/ps)', async () => {
    server.setServedWindows({
      ollamaShow: { 'qwen3:8b': { architecture: 'qwen3', contextLength: 40_960 } },
      ollamaPs: [
        { model: 'llama3.2', contextLength: 2_048 },
        { model: 'qwen3:8b', contextLength: 16_384 },
      ],
    });
    expect(await detect('qwen3:8b')).toBe(16_384);
    expect(asked()).toEqual(['POST /api/show', 'GET /api/ps']);
  });

  it("never answers with the model's maximum: not loaded and no num_ctx is unknown", async () => {
    server.setServedWindows({
      ollamaShow: { 'llama3.1:8b': { contextLength: 131_072 } },
      ollamaPs: [],
    });
    expect(await detect('llama3.1:8b')).toBeUndefined();
    expect(asked()).toEqual(['POST /api/show', 'GET /api/ps', 'GET /v1/models', 'GET /props']);
  });
});

describe('detectServedContextWindow: vLLM and llama.cpp', () => {
  it('reads max_model_len of the model with that id from /v1/models', async () => {
    server.setServedWindows({
      vllmModels: [
        { id: 'meta-llama/Llama-3.1-8B-Instruct', maxModelLen: 32_768 },
        { id: 'other', maxModelLen: 4_096 },
      ],
    });
    expect(await detect('meta-llama/Llama-3.1-8B-Instruct')).toBe(32_768);
    // Same answer whether the base URL has /v1 or not.
    expect(await detect('meta-llama/Llama-3.1-8B-Instruct', server.url)).toBe(32_768);
    expect(await detect('not-served')).toBeUndefined();
  });

  it('reads default_generation_settings.n_ctx from llama.cpp /props', async () => {
    server.setServedWindows({ llamaCppNCtx: 4_096 });
    expect(await detect('whatever-the-gguf-is')).toBe(4_096);
    expect(asked()).toEqual(['POST /api/show', 'GET /api/ps', 'GET /v1/models', 'GET /props']);
  });

  it('asks in order and stops at the first plausible answer', async () => {
    server.setServedWindows({ vllmModels: [{ id: 'm', maxModelLen: 8_000 }], llamaCppNCtx: 2_048 });
    expect(await detect('m')).toBe(8_000);
    expect(asked()).toEqual(['POST /api/show', 'GET /api/ps', 'GET /v1/models']);
  });
});

describe('detectServedContextWindow: what it does not trust or cannot reach', () => {
  it.each([
    ['zero', 0],
    ['negative', -8_192],
    ['fractional', 4_096.5],
    ['absurdly large', MAX_PLAUSIBLE_CONTEXT_WINDOW + 1],
  ])('skips a %s figure and asks on', async (_name, bad) => {
    server.setServedWindows({
      ollamaShow: { m: { numCtx: bad } },
      vllmModels: [{ id: 'm', maxModelLen: bad }],
      llamaCppNCtx: 6_144,
    });
    expect(await detect('m')).toBe(6_144);
  });

  it('answers undefined for a server that answers nothing it knows', async () => {
    expect(await detect('m')).toBeUndefined();
    expect(server.requests).toHaveLength(4);
  });

  it('answers undefined, quickly, for an unreachable server', async () => {
    const url = server.url;
    await server.close();
    const started = Date.now();
    expect(await detect('m', `${url}/v1`)).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('answers undefined within the timeout for a server that accepts and never answers, asking once', async () => {
    const sockets: Socket[] = [];
    const silent: Server = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    try {
      const started = Date.now();
      const window = await detectServedContextWindow({
        baseUrl: `http://127.0.0.1:${port}/v1`,
        model: 'm',
        timeoutMs: 100,
      });
      expect(window).toBeUndefined();
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(sockets).toHaveLength(1);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('is not held past the timeout by a fetch that ignores its signal, and never throws', async () => {
    const neverAnswers: typeof fetch = () => new Promise<Response>(() => {});
    const throws: typeof fetch = () => Promise.reject(new TypeError('fetch failed'));
    const started = Date.now();
    expect(
      await detectServedContextWindow({
        baseUrl: 'http://x/v1',
        model: 'm',
        fetch: neverAnswers,
        timeoutMs: 50,
      }),
    ).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(
      await detectServedContextWindow({ baseUrl: 'http://x/v1', model: 'm', fetch: throws }),
    ).toBeUndefined();
  });

  it('stops asking when the caller aborts', async () => {
    server.setServedWindows({ llamaCppNCtx: 4_096 });
    expect(
      await detectServedContextWindow({
        baseUrl: server.openAIBaseUrl,
        model: 'm',
        signal: AbortSignal.abort(),
      }),
    ).toBeUndefined();
    expect(server.requests).toHaveLength(0);
  });
});
