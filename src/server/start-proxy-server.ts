/** Starts the proxy on a port (0: any free one) and says where it listens. */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createProxyApp } from './proxy-app.ts';
import type { ProxyOptions } from './proxy-options.ts';

export interface RunningProxy {
  /** `http://host:port`, the base URL clients point at (`/v1` appended for OpenAI clients). */
  url: string;
  port: number;
  /** Stops listening; requests in flight get `graceMs` (default 10 s) to finish before they are cut. */
  close(graceMs?: number): Promise<void>;
}

/** How long requests in flight may take to finish when the server closes. */
export const DEFAULT_CLOSE_GRACE_MS = 10_000;
/** While closing, how often connections that went idle are closed. */
const CLOSE_SWEEP_MS = 100;

export function startProxyServer(
  options: ProxyOptions & { port?: number; host?: string },
): Promise<RunningProxy> {
  const app = createProxyApp(options);
  const host = options.host ?? '127.0.0.1';
  let draining = false;
  // While closing, every answer says `Connection: close`: a client on a kept-alive connection sends its
  // next request elsewhere instead of to a server about to cut it.
  const fetchApp = async (request: Request, env: unknown): Promise<Response> => {
    const response = await app.fetch(request, env);
    if (!draining) return response;
    const headers = new Headers(response.headers);
    headers.set('connection', 'close');
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  };
  return new Promise((resolve, reject) => {
    const server = serve(
      { fetch: fetchApp, port: options.port ?? 0, hostname: host },
      (info: AddressInfo) => {
        const shown = info.address.includes(':') ? `[${info.address}]` : info.address;
        resolve({
          url: `http://${shown}:${info.port}`,
          port: info.port,
          close: (graceMs = DEFAULT_CLOSE_GRACE_MS) =>
            new Promise<void>((done) => {
              // New connections are refused at once, idle ones closed; requests in flight get `graceMs`
              // to finish before their connections are cut.
              const http = server as unknown as {
                closeIdleConnections?: () => void;
                closeAllConnections?: () => void;
              };
              draining = true;
              const force = setTimeout(() => http.closeAllConnections?.(), graceMs);
              force.unref();
              // Connections that go idle while others finish are closed as they do, not at the deadline.
              const sweep = setInterval(() => http.closeIdleConnections?.(), CLOSE_SWEEP_MS);
              sweep.unref();
              server.close(() => {
                clearTimeout(force);
                clearInterval(sweep);
                done();
              });
              http.closeIdleConnections?.();
            }),
        });
      },
    );
    server.once('error', reject);
  });
}
