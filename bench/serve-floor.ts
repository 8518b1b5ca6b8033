/**
 * The passthrough floor of `bench/serve.ts`: the least any proxy that reads the request can add. A bare
 * `node:http` server in a process of its own (as `serve-proxy.ts` runs ctxkit's) that reads the whole
 * body, `JSON.parse`s it and `JSON.stringify`s it again, sends it with `fetch` (as ctxkit does) to the
 * same upstream, at the same path, with the client's headers (less the hop-by-hop ones and
 * `content-length`), and answers with the upstream's status and headers and its body streamed through.
 * No session, no store, no log, no token counting: what is left is the HTTP hop, the body's parse and
 * serialization, and the second connection.
 *
 * Run as a child of `bench/serve.ts` (argv[2]: JSON `FloorSpec`, with `--expose-gc`); it speaks the IPC
 * protocol of `serve-proxy.ts` (`ready`, `sample`, `gc`, `stop`), so the bench measures it the same way.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { answerParent } from './serve-child.ts';

export interface FloorSpec {
  /** The upstream's origin: the client's path (`/v1/chat/completions`) is sent on to it as is. */
  upstream: string;
  sampleMs: number;
}

/** Hop-by-hop headers, and those fetch sets itself from the body it sends or decodes. */
const NOT_FORWARDED = new Set([
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
  'content-length',
  'content-encoding',
]);

function forwardedHeaders(request: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || NOT_FORWARDED.has(name)) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return headers;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function main(): void {
  const spec = JSON.parse(process.argv[2] ?? '{}') as FloorSpec;
  const server = createServer((request, response) => {
    void (async () => {
      try {
        const body = JSON.stringify(JSON.parse(await readBody(request)));
        const upstream = await fetch(`${spec.upstream}${request.url ?? '/'}`, {
          method: request.method ?? 'POST',
          headers: forwardedHeaders(request),
          body,
        });
        const headers: Record<string, string> = {};
        upstream.headers.forEach((value, name) => {
          if (!NOT_FORWARDED.has(name)) headers[name] = value;
        });
        response.writeHead(upstream.status, headers);
        if (upstream.body) await pipeline(Readable.fromWeb(upstream.body as WebReadableStream), response);
        else response.end();
      } catch (error) {
        if (response.headersSent) {
          response.destroy(error as Error);
          return;
        }
        response.writeHead(502, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message: `floor: ${(error as Error).message}` } }));
      }
    })();
  });
  server.keepAliveTimeout = 60_000;
  const ready = answerParent(spec.sampleMs, () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    ready(`http://127.0.0.1:${port}`);
  });
}

main();
