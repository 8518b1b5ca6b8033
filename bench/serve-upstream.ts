/**
 * The bench's model: a node:http server that answers every `POST …/chat/completions` at once, once its
 * body has arrived, with a valid non-streamed completion. The reply is the corpus's assistant message the
 * request's `x-bench-reply` header names (a fixed "OK." without it); `usage.prompt_tokens` is the body's
 * bytes / 4. Anything else (the window probes the proxy sends) gets a 404.
 *
 * Run as a child process of `bench/serve.ts` (argv[2]: JSON `{ maxMessages }`): it says
 * `{ type: 'ready', url }` over IPC and exits when the parent disconnects.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type BenchSession, loadBenchSessions, REPLY_HEADER } from './serve-conversations.ts';

const FIXED_REPLY = {
  message: '{"role":"assistant","content":"OK."}',
  finishReason: 'stop',
  outputTokens: 2,
};

function completionHead(model: string, reply: BenchSession['replies'][number]): string {
  return `{"id":"chatcmpl-bench","object":"chat.completion","created":1700000000,"model":${JSON.stringify(model)},"choices":[{"index":0,"message":${reply.message},"logprobs":null,"finish_reason":"${reply.finishReason}"}],"usage":{"prompt_tokens":`;
}

function main(): void {
  const { maxMessages, model } = JSON.parse(process.argv[2] ?? '{}') as {
    maxMessages: number;
    model: string;
  };
  const sessions = loadBenchSessions(maxMessages);
  const heads = sessions.map((session) => session.replies.map((reply) => completionHead(model, reply)));
  const fixedHead = completionHead(model, FIXED_REPLY);
  const replyOf = (header: string | string[] | undefined): { head: string; outputTokens: number } => {
    if (typeof header === 'string') {
      const [session, step] = header.split('.').map(Number);
      const head = heads[session ?? -1]?.[step ?? -1];
      const reply = sessions[session ?? -1]?.replies[step ?? -1];
      if (head !== undefined && reply) return { head, outputTokens: reply.outputTokens };
    }
    return { head: fixedHead, outputTokens: FIXED_REPLY.outputTokens };
  };

  const server = createServer((request, response) => {
    let bytes = 0;
    request.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    request.on('end', () => {
      if (request.method !== 'POST' || !request.url?.endsWith('/chat/completions')) {
        response.writeHead(404, { 'content-type': 'application/json' });
        response.end('{"error":{"message":"not found","type":"invalid_request_error"}}');
        return;
      }
      const { head, outputTokens } = replyOf(request.headers[REPLY_HEADER]);
      const input = Math.ceil(bytes / 4);
      const body = `${head}${input},"completion_tokens":${outputTokens},"total_tokens":${input + outputTokens}}}`;
      response.writeHead(200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      });
      response.end(body);
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    process.send?.({ type: 'ready', url: `http://127.0.0.1:${port}` });
  });
  process.on('disconnect', () => {
    server.close();
    server.closeAllConnections();
    process.exit(0);
  });
}

main();
