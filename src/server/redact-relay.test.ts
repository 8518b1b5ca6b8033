import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { REDACTED } from './redact-keys.ts';
import { clientSecrets, RelayRedaction } from './redact-relay.ts';
import { capturingLogger } from './testing/capturing-logger.ts';

const SERVER_KEY = 'sk-proj-relayServerKey-1f2e3d4c';
const CLIENT_KEY = 'sk-proj-relayClientKey-9a8b7c6d';

describe('clientSecrets', () => {
  it('takes the credential of each header a key or token comes in', () => {
    const headers = new Headers({
      authorization: `Bearer ${CLIENT_KEY}`,
      'x-api-key': 'anthropic-style-key-123',
      'api-key': 'azure-style-key-456',
      'x-ctxkit-token': 'a-proxy-token-789',
    });
    expect(clientSecrets(headers)).toEqual([
      CLIENT_KEY,
      'anthropic-style-key-123',
      'azure-style-key-456',
      'a-proxy-token-789',
    ]);
    expect(clientSecrets(new Headers({ authorization: CLIENT_KEY }))).toEqual([CLIENT_KEY]);
  });
});

describe('RelayRedaction', () => {
  it('redacts the headers and body of a response, whatever the handler made', async () => {
    const redaction = new RelayRedaction([SERVER_KEY]);
    const app = new Hono();
    app.use('*', redaction.middleware);
    app.get('/', () => {
      const headers = new Headers({ 'x-echo': `key ${CLIENT_KEY}`, 'content-length': '999' });
      headers.set(`x-${SERVER_KEY}`, 'a name quoting a key');
      return new Response(JSON.stringify({ server: SERVER_KEY, client: CLIENT_KEY }), {
        status: 401,
        headers,
      });
    });
    const response = await app.request('/', { headers: { authorization: `Bearer ${CLIENT_KEY}` } });
    expect(response.status).toBe(401);
    expect(response.headers.get('x-echo')).toBe(`key ${REDACTED}`);
    expect(response.headers.get('content-length')).toBeNull();
    expect([...response.headers.keys()].some((name) => name.includes(SERVER_KEY.toLowerCase()))).toBe(false);
    expect(await response.json()).toEqual({ server: REDACTED, client: REDACTED });
  });

  it('redacts what is logged: the server’s keys always, the client’s while its request is served', async () => {
    const { logger, lines } = capturingLogger();
    const redaction = new RelayRedaction([SERVER_KEY]);
    const log = redaction.logger(logger);
    log.warn({ err: new Error(`upstream said ${SERVER_KEY}`), nested: [{ at: SERVER_KEY }] }, 'failed');
    const app = new Hono();
    app.use('*', redaction.middleware);
    app.get('/', () => {
      log.warn({ err: { message: `upstream said ${CLIENT_KEY}` } }, 'in the handler');
      const encoder = new TextEncoder();
      // A stream's later parts are made as the client reads them: logged then, still the request's.
      let sent = false;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent) return controller.close();
          log.info({ quoted: CLIENT_KEY }, 'while streaming');
          controller.enqueue(encoder.encode('data: {}\n\n'));
          sent = true;
        },
      });
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
    });
    const response = await app.request('/', { headers: { 'x-api-key': CLIENT_KEY } });
    expect(await response.text()).toBe('data: {}\n\n');
    const text = lines.join('');
    expect(lines).toHaveLength(3);
    expect(text).not.toContain(SERVER_KEY);
    expect(text).not.toContain(CLIENT_KEY);
    for (const line of lines) expect(line).toContain(REDACTED);
  });

  it("builds a client's redactor once for its key, and uses the server's for a key the server holds", () => {
    const redaction = new RelayRedaction([SERVER_KEY]);
    const client = new Headers({ authorization: `Bearer ${CLIENT_KEY}` });
    const first = redaction.of(client);
    expect(redaction.of(new Headers({ authorization: `Bearer ${CLIENT_KEY}` }))).toBe(first);
    expect(first.text(`${CLIENT_KEY} ${SERVER_KEY}`)).toBe(`${REDACTED} ${REDACTED}`);
    expect(redaction.of(new Headers({ authorization: `Bearer ${SERVER_KEY}` }))).toBe(redaction.server);
  });
});
