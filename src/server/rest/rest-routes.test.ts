/** The REST API over real HTTP, through the proxy harness: every route, owners kept apart, validation. */
import { afterEach, describe, expect, it } from 'vitest';
import type { MessageInput } from '../../core/message.ts';
import { type ProxyHarness, startProxyHarness } from '../testing/proxy-harness.ts';
import { REST_ROUTES } from './rest-openapi.ts';

const TOKEN_A = 'token-a-0123456789abcdef';
const TOKEN_B = 'token-b-0123456789abcdef';

let harness: ProxyHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function start(): Promise<ProxyHarness> {
  harness = await startProxyHarness({ tokens: [TOKEN_A, TOKEN_B], contextWindow: 100_000 });
  return harness;
}

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: test reads of JSON answers
  json: any;
}

async function call(
  h: ProxyHarness,
  method: string,
  path: string,
  body?: unknown,
  token: string | null = TOKEN_A,
): Promise<Answer> {
  const response = await fetch(`${h.proxy.url}${path}`, {
    method,
    headers: {
      ...(token !== null && { 'x-ctxkit-token': token }),
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

const user = (text: string): MessageInput => ({ role: 'user', parts: [{ type: 'text', text }] });
const assistant = (text: string): MessageInput => ({ role: 'assistant', parts: [{ type: 'text', text }] });

function conversation(turns: number): MessageInput[] {
  const out: MessageInput[] = [];
  for (let turn = 0; turn < turns; turn++)
    out.push(
      user(`question ${turn}: ${'lorem ipsum '.repeat(40)}`),
      assistant(`answer ${turn}: ${'dolor sit '.repeat(40)}`),
    );
  return out;
}

describe('REST sessions', () => {
  it('creates, lists, reads and deletes sessions', async () => {
    const h = await start();
    const created = await call(h, 'POST', '/api/sessions', { id: 'alpha' });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ id: 'alpha', messages: 0 });
    expect((await call(h, 'POST', '/api/sessions', { id: 'alpha' })).status).toBe(409);

    const generated = await call(h, 'POST', '/api/sessions');
    expect(generated.status).toBe(201);
    expect(generated.json.id).toMatch(/^s_[0-9a-f]{24}$/);

    const listed = await call(h, 'GET', '/api/sessions');
    expect(listed.status).toBe(200);
    expect(listed.json.sessions.map((s: { id: string }) => s.id).sort()).toEqual(
      ['alpha', generated.json.id].sort(),
    );

    const appended = await call(h, 'POST', '/api/sessions/alpha/messages', { messages: conversation(2) });
    expect(appended.status).toBe(201);
    expect(appended.json.messages).toHaveLength(4);
    expect(appended.json.messages[0]).toMatchObject({ seq: 0, role: 'user' });

    const read = await call(h, 'GET', '/api/sessions/alpha');
    expect(read.status).toBe(200);
    expect(read.json).toMatchObject({ id: 'alpha', messages: 4 });
    expect(read.json.updatedAt).toBeGreaterThan(0);
    const relisted = await call(h, 'GET', '/api/sessions');
    expect(relisted.json.sessions.find((s: { id: string }) => s.id === 'alpha')).toMatchObject({
      messages: 4,
    });
    expect((await call(h, 'POST', '/api/sessions', { id: 'alpha' })).status).toBe(409);

    const deleted = await call(h, 'DELETE', '/api/sessions/alpha');
    expect(deleted.status).toBe(200);
    expect(deleted.json).toMatchObject({ id: 'alpha', deleted: true });
    expect(deleted.json.traceEvents).toBeGreaterThanOrEqual(0);
    expect((await call(h, 'GET', '/api/sessions/alpha')).status).toBe(404);
    const sessionsLeft = await h.store.list();
    expect(sessionsLeft.some((listing) => listing.id.endsWith(':alpha'))).toBe(false);
    await h.manager.flushTrace();
    const traceLeft = (await h.trace.exportJsonl()).split('\n').filter((line) => line.includes(':alpha"'));
    expect(traceLeft).toEqual([]);
    expect((await call(h, 'DELETE', '/api/sessions/alpha')).status).toBe(404);
  });

  it('keeps each token to its own sessions', async () => {
    const h = await start();
    await call(h, 'POST', '/api/sessions', { id: 'mine' });
    await call(h, 'POST', '/api/sessions/mine/messages', { messages: [user('secret')] });

    expect((await call(h, 'GET', '/api/sessions', undefined, TOKEN_B)).json.sessions).toEqual([]);
    for (const [method, path, body] of [
      ['GET', '/api/sessions/mine', undefined],
      ['GET', '/api/sessions/mine/context', undefined],
      ['GET', '/api/sessions/mine/export', undefined],
      ['POST', '/api/sessions/mine/messages', { messages: [user('intruder')] }],
      ['POST', '/api/sessions/mine/compact', { mode: 'emergency' }],
      ['POST', '/api/sessions/mine/count', {}],
      ['GET', '/api/sessions/mine/policy', undefined],
      ['PATCH', '/api/sessions/mine/policy', { summarize: { trigger: 0.5 } }],
      ['DELETE', '/api/sessions/mine/context', undefined],
      ['DELETE', '/api/sessions/mine', undefined],
    ] as const) {
      const answer = await call(h, method, path, body, TOKEN_B);
      expect(answer.status, `${method} ${path}`).toBe(404);
    }
    // The other token may use the same id for a session of its own.
    expect((await call(h, 'POST', '/api/sessions', { id: 'mine' }, TOKEN_B)).status).toBe(201);
    expect((await call(h, 'GET', '/api/sessions/mine', undefined, TOKEN_A)).json.messages).toBe(1);
    expect((await call(h, 'GET', '/api/sessions/mine', undefined, TOKEN_B)).json.messages).toBe(0);

    const noToken = await call(h, 'GET', '/api/sessions', undefined, null);
    expect(noToken.status).toBe(401);
    expect(noToken.json.error.message).toMatch(/token/);
    expect((await call(h, 'GET', '/api/sessions', undefined, 'wrong-token-0123456789')).status).toBe(401);
  });

  it('refuses bad bodies with every bad field', async () => {
    const h = await start();
    await call(h, 'POST', '/api/sessions', { id: 'v' });
    const bad = await call(h, 'POST', '/api/sessions/v/messages', {
      messages: [
        { role: 'robot', parts: [] },
        { role: 'user', parts: [{ type: 'text' }] },
      ],
    });
    expect(bad.status).toBe(400);
    const paths = bad.json.error.issues.map((issue: { path: string }) => issue.path);
    expect(paths).toContain('messages[0].role');
    expect(paths).toContain('messages[1].parts[0].text');
    for (const issue of bad.json.error.issues) expect(issue.message).toEqual(expect.any(String));

    const missing = await call(h, 'POST', '/api/sessions/v/messages', {});
    expect(missing.status).toBe(400);
    expect(missing.json.error.issues).toEqual([{ path: 'messages', message: expect.any(String) }]);

    const compact = await call(h, 'POST', '/api/sessions/v/compact', { mode: 'gentle', instructions: 3 });
    expect(compact.status).toBe(400);
    expect(compact.json.error.issues.map((issue: { path: string }) => issue.path).sort()).toEqual([
      'instructions',
      'mode',
    ]);

    const count = await call(h, 'POST', '/api/sessions/v/count', { tools: [{}], messages: 'hello' });
    expect(count.status).toBe(400);
    expect(count.json.error.issues.map((issue: { path: string }) => issue.path).sort()).toEqual([
      'messages',
      'tools[0].name',
    ]);

    const badId = await call(h, 'POST', '/api/sessions', { id: 'caf\u00e9' });
    expect(badId.status).toBe(400);
    expect(badId.json.error.issues[0].path).toBe('id');
    // A URL resolves `.` and `..` away: no route could ever name such a session.
    for (const id of ['.', '..']) {
      const dots = await call(h, 'POST', '/api/sessions', { id });
      expect(dots.status).toBe(400);
      expect(dots.json.error.issues[0].message).toMatch(/must not be "\." or "\.\."/);
    }

    // A route that does not exist answers in JSON too, naming the method and path.
    const unknown = await call(h, 'PUT', '/api/sessions/v', {});
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.message).toBe('no route PUT /api/sessions/v');

    const notJson = await call(h, 'POST', '/api/sessions/v/messages', '{nope');
    expect(notJson.status).toBe(400);
    expect(notJson.json.error.message).toMatch(/not JSON/);

    // What only the manager knows (a tool message's one result) is reported with its field as well.
    const managerBad = await call(h, 'POST', '/api/sessions/v/messages', {
      messages: [{ role: 'tool', parts: [{ type: 'text', text: 'x' }] }],
    });
    expect(managerBad.status).toBe(400);
    expect(managerBad.json.error.issues[0].path).toMatch(/^messages\[0\]/);
  });
});

describe('REST context', () => {
  it('shows the context, compacts, clears and counts', async () => {
    const h = await start();
    await call(h, 'POST', '/api/sessions', { id: 'ctx' });
    await call(h, 'POST', '/api/sessions/ctx/messages', { messages: conversation(8) });

    const context = await call(h, 'GET', '/api/sessions/ctx/context');
    expect(context.status).toBe(200);
    expect(context.json.stats).toMatchObject({ sessionId: 'ctx', messages: { log: 16, view: 16 } });
    expect(context.json.stats.tokens.history).toBeGreaterThan(0);
    expect(context.json.view.messages).toHaveLength(16);

    const countBefore = await call(h, 'POST', '/api/sessions/ctx/count', {
      system: 'You are terse.',
      messages: [user('one more question')],
    });
    expect(countBefore.status).toBe(200);
    expect(countBefore.json.before).toBeGreaterThan(0);
    expect(countBefore.json.after).toBeGreaterThan(0);
    expect(countBefore.json.breakdown.pending).toBeGreaterThan(0);
    // Counting stores nothing.
    expect((await call(h, 'GET', '/api/sessions/ctx')).json.messages).toBe(16);

    const emergency = await call(h, 'POST', '/api/sessions/ctx/compact', { mode: 'emergency' });
    expect(emergency.status).toBe(200);
    expect(emergency.json.compacted).toBe(true);
    const afterEmergency = await call(h, 'GET', '/api/sessions/ctx/context');
    expect(afterEmergency.json.stats.messages.view).toBeLessThan(16);
    expect(afterEmergency.json.stats.messages.log).toBe(16);

    const countAfter = await call(h, 'POST', '/api/sessions/ctx/count', {
      system: 'You are terse.',
      messages: [user('one more question')],
    });
    expect(countAfter.json.before).toBe(countBefore.json.before);
    expect(countAfter.json.after).toBeLessThan(countAfter.json.before);
    expect(countAfter.json.saved).toBe(countAfter.json.before - countAfter.json.after);

    await call(h, 'POST', '/api/sessions/ctx/messages', { messages: conversation(6) });
    const summarize = await call(h, 'POST', '/api/sessions/ctx/compact', {
      mode: 'summarize',
      instructions: 'keep the questions',
    });
    expect(summarize.status).toBe(200);
    expect(typeof summarize.json.compacted).toBe('boolean');

    const cleared = await call(h, 'DELETE', '/api/sessions/ctx/context');
    expect(cleared.status).toBe(200);
    const afterClear = await call(h, 'GET', '/api/sessions/ctx/context');
    expect(afterClear.json.stats.messages.view).toBe(0);
    expect(afterClear.json.view.messages).toEqual([]);
  });

  it('exports the log, the edits and the trace as JSON lines', async () => {
    const h = await start();
    await call(h, 'POST', '/api/sessions', { id: 'exp' });
    await call(h, 'POST', '/api/sessions/exp/messages', { messages: conversation(4) });
    await call(h, 'POST', '/api/sessions/exp/compact', { mode: 'emergency' });
    const exported = await call(h, 'GET', '/api/sessions/exp/export');
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const lines = exported.text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { kind: string; sessionId?: string });
    const kinds = new Set(lines.map((line) => line.kind));
    expect(lines.filter((line) => line.kind === 'message')).toHaveLength(8);
    expect(kinds).toEqual(new Set(['message', 'edit', 'event']));
    expect(exported.text.endsWith('\n')).toBe(true);
  });
});

describe('REST policy', () => {
  const lower = { summarize: { trigger: 0.5, keepRecentTokens: 1_000 }, clearing: { trigger: 0.3 } };
  const storedOverride = async (h: ProxyHarness, publicId: string) => {
    const listing = (await h.store.list()).find((entry) => entry.id.endsWith(`:${publicId}`));
    return listing && (await h.store.loadPolicyOverride(listing.id))?.override;
  };

  it('patches a session policy by JSON merge patch, keeps it in the store, and reads it back', async () => {
    const h = await start();
    await call(h, 'POST', '/api/sessions', { id: 'p' });
    const initial = await call(h, 'GET', '/api/sessions/p/policy');
    expect(initial.status).toBe(200);
    expect(initial.json).toEqual({ id: 'p', override: {}, policy: h.manager.policy });

    // A session with no message yet takes a policy, and is stored by it.
    const patched = await call(h, 'PATCH', '/api/sessions/p/policy', lower);
    expect(patched.status).toBe(200);
    expect(patched.json.override).toEqual(lower);
    expect(patched.json.policy.summarize.trigger).toBe(0.5);
    expect(patched.json.policy.summarize.strategy).toBe(h.manager.policy.summarize.strategy);
    expect(await storedOverride(h, 'p')).toEqual(lower);
    expect((await call(h, 'GET', '/api/sessions')).json.sessions).toEqual([
      expect.objectContaining({ id: 'p', messages: 0 }),
    ]);
    expect((await call(h, 'GET', '/api/sessions/p/policy')).json).toEqual(patched.json);

    // null removes a key; the merge-patch media type is accepted as JSON.
    const removed = await fetch(`${h.proxy.url}/api/sessions/p/policy`, {
      method: 'PATCH',
      headers: { 'x-ctxkit-token': TOKEN_A, 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ summarize: { keepRecentTokens: null }, budget: { maxContextTokens: 50_000 } }),
    });
    expect(removed.status).toBe(200);
    const removedJson = (await removed.json()) as {
      override: unknown;
      policy: { summarize: { keepRecentTokens: number } };
    };
    expect(removedJson.override).toEqual({
      summarize: { trigger: 0.5 },
      clearing: { trigger: 0.3 },
      budget: { maxContextTokens: 50_000 },
    });
    expect(removedJson.policy.summarize.keepRecentTokens).toBe(h.manager.policy.summarize.keepRecentTokens);
    const cleared = await call(h, 'PATCH', '/api/sessions/p/policy', {
      summarize: null,
      clearing: null,
      budget: null,
    });
    expect(cleared.json.override).toEqual({});
    expect(await storedOverride(h, 'p')).toBeUndefined();
  });

  it('refuses a bad patch with 400 listing each bad key by its path, changing nothing', async () => {
    const h = await start();
    await call(h, 'POST', '/api/sessions', { id: 'v' });
    await call(h, 'PATCH', '/api/sessions/v/policy', lower);

    const bad = await call(h, 'PATCH', '/api/sessions/v/policy', {
      summarize: { trigger: 2, triger: 0.5 },
      budget: { contextWindow: 'big' },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe('invalid_policy');
    const issues = bad.json.error.issues as { path: string; message: string }[];
    expect(issues.map((issue) => issue.path).sort()).toEqual([
      'budget.contextWindow',
      'summarize.triger',
      'summarize.trigger',
    ]);
    expect(issues.find((issue) => issue.path === 'summarize.trigger')?.message).toMatch(/^must be ≤ 1/);
    expect(issues.find((issue) => issue.path === 'summarize.triger')?.message).toMatch(
      /did you mean "trigger"/,
    );

    // A key the server sets for every session is refused, naming it.
    const managerWide = await call(h, 'PATCH', '/api/sessions/v/policy', {
      tokens: { counter: 'heuristic' },
    });
    expect(managerWide.status).toBe(400);
    expect(managerWide.json.error.issues).toEqual([
      { path: 'tokens.counter', message: expect.stringMatching(/cannot be overridden per session/) },
    ]);
    // Rules between fields are checked on the merged policy: clearing must start below summarizing.
    const crossed = await call(h, 'PATCH', '/api/sessions/v/policy', { clearing: { trigger: null } });
    expect(crossed.status).toBe(400);
    expect(crossed.json.error.issues[0].path).toBe('clearing.trigger');
    // The body must be an object.
    const notObject = await call(h, 'PATCH', '/api/sessions/v/policy', [{ summarize: {} }]);
    expect(notObject.status).toBe(400);

    expect((await call(h, 'GET', '/api/sessions/v/policy')).json.override).toEqual(lower);
    expect((await call(h, 'PATCH', '/api/sessions/nope/policy', lower)).status).toBe(404);
  });

  it("shows the session's policy in its context statistics, another session keeping the server's", async () => {
    const h = await start();
    for (const id of ['own', 'plain']) {
      await call(h, 'POST', '/api/sessions', { id });
      await call(h, 'POST', `/api/sessions/${id}/messages`, { messages: conversation(4) });
    }
    await call(h, 'PATCH', '/api/sessions/own/policy', lower);
    const own = (await call(h, 'GET', '/api/sessions/own/context')).json.stats.thresholds;
    const plain = (await call(h, 'GET', '/api/sessions/plain/context')).json.stats.thresholds;
    expect(own.summarize.pressure).toBe(0.5);
    expect(own.clearing.pressure).toBe(0.3);
    expect(plain.summarize.pressure).toBe(h.manager.policy.summarize.trigger);
    expect(plain.clearing.pressure).toBe(h.manager.policy.clearing.trigger);
    expect(own.summarize.tokens).toBeLessThan(plain.summarize.tokens);
  });
});

describe('REST without tokens', () => {
  it('is refused to a cross-site browser request, as the model routes are', async () => {
    harness = await startProxyHarness({ contextWindow: 100_000 });
    const h = harness;
    const refused = await fetch(`${h.proxy.url}/api/sessions`, {
      headers: { origin: 'https://evil.example' },
    });
    expect(refused.status).toBe(403);
    const local = await call(h, 'POST', '/api/sessions', { id: 'here' }, null);
    expect(local.status).toBe(201);
    // The client's own key identifies it: another key does not see the session.
    expect((await call(h, 'GET', '/api/sessions/here', undefined, null)).status).toBe(200);
    const other = await fetch(`${h.proxy.url}/api/sessions/here`, {
      headers: { authorization: 'Bearer sk-other' },
    });
    expect(other.status).toBe(404);
  });

  it('says why a session with no window cannot be compacted', async () => {
    harness = await startProxyHarness({ tokens: [TOKEN_A] });
    const h = harness;
    await call(h, 'POST', '/api/sessions', { id: 'nowindow' });
    await call(h, 'POST', '/api/sessions/nowindow/messages', { messages: conversation(2) });
    const answer = await call(h, 'POST', '/api/sessions/nowindow/compact', { mode: 'emergency' });
    expect(answer.status).toBe(409);
    expect(answer.json.error.message).toMatch(/no model request/);
  });
});

describe('OpenAPI', () => {
  it('documents every route as OpenAPI 3.1', async () => {
    const h = await start();
    const answer = await call(h, 'GET', '/openapi.json', undefined, null);
    expect(answer.status).toBe(200);
    const document = JSON.parse(answer.text);
    expect(document.openapi).toBe('3.1.0');
    for (const [method, path] of REST_ROUTES)
      expect(document.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    expect(Object.values(document.paths).flatMap((item) => Object.keys(item as object))).toHaveLength(
      REST_ROUTES.length,
    );
    const messages =
      document.paths['/api/sessions/{id}/messages'].post.requestBody.content['application/json'].schema;
    expect(messages.properties.messages.type).toBe('array');
    expect(messages.required).toEqual(['messages']);
    const compact =
      document.paths['/api/sessions/{id}/compact'].post.requestBody.content['application/json'].schema;
    expect(compact.properties.mode.enum).toEqual(['emergency', 'summarize']);
    const policyPatch = document.paths['/api/sessions/{id}/policy'].patch.requestBody.content;
    expect(policyPatch['application/merge-patch+json'].schema.type).toBe('object');
    expect(policyPatch['application/json'].schema.type).toBe('object');
    // No reference points outside the document.
    for (const match of answer.text.matchAll(/"\$ref":"([^"]+)"/g))
      expect(match[1]).toMatch(/^#\/components\//);
  });
});
