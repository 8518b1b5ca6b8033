/**
 * A fleet: three `ctxkit serve` processes on one PostgreSQL (the run's embedded server), each with its
 * own data directory, one upstream. One session is advanced through all three in turn, then many
 * sessions (named and recognized) through all of them at once while REST calls compact them from any
 * instance. Checked: no message lost or duplicated, every instance serves the same view of a session,
 * no two instances compacting one session at once (from the compaction lines of the three logs), and
 * each process ends cleanly on SIGTERM.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestDatabase, usePostgresTestDatabases } from '../store/testing/postgres-test-databases.ts';
import { type FakeProviderServer, startFakeProviderServer } from '../testing/fake-provider-server.ts';
import { openAIReply } from '../testing/fake-provider-server-replies.ts';
import { type ServeProcess, startServeProcess } from './testing/serve-process.ts';

const databases = usePostgresTestDatabases();
const KEY = 'sk-test-FLEET-0123456789abcdef';
/** Small enough that a session compacts within a few turns. */
const WINDOW = 6_000;
const INSTANCES = 3;

interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

interface Conversation {
  /** The header id of a named session; undefined: the proxy recognizes the conversation. */
  named: string | undefined;
  /** The id the proxy answers with (a recognized conversation's is learned from its first answer). */
  id: string | undefined;
  messages: ChatMessage[];
  /** What this test sent as user messages, in order. */
  sent: string[];
}

interface ChatCompletion {
  choices: Array<{ message: { content: string } }>;
}

/** The text of an OpenAI stream, its deltas joined. */
function streamedText(raw: string): string {
  let text = '';
  for (const line of raw.split('\n')) {
    if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
    const chunk = JSON.parse(line.slice(6)) as { choices?: Array<{ delta?: { content?: string } }> };
    text += chunk.choices?.[0]?.delta?.content ?? '';
  }
  return text;
}

/** What `GET /api/sessions/:id/context` answers, as far as this test reads it. */
interface ContextAnswer {
  view: unknown;
  stats: {
    messages: unknown;
    roles: unknown;
    turns: number;
    edits: number;
    contextWindow: number;
    maxOutputTokens: number;
    thresholds: { clearing?: { pressure: number }; summarize?: { pressure: number } };
    summary?: { throughSeq: number };
  };
}

interface CompactionLine {
  instance: number;
  session: string;
  layer: string;
  startedAt: number;
  finishedAt: number;
}

/** A deterministic choice of instance, so a failure replays the same way. */
function chooser(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state % n;
  };
}

describe('a fleet of three ctxkit serve processes on one PostgreSQL', () => {
  let upstream: FakeProviderServer;
  let database: TestDatabase | undefined;
  let fleet: ServeProcess[] = [];
  const dirs: string[] = [];
  const statuses: number[] = [];

  beforeAll(async () => {
    database = await databases.create();
    const url = database.url;
    // The reply names the user message it answers, so a reply in the wrong session would show.
    upstream = await startFakeProviderServer({
      fallback: (request) => {
        const messages = (request.body as { messages?: ChatMessage[] }).messages ?? [];
        const last = [...messages].reverse().find((message) => message.role === 'user');
        const tag = /^(\S+)/.exec(String(last?.content ?? ''))?.[1] ?? 'none';
        return openAIReply(
          { content: `ack ${tag}`, usage: { promptTokens: 1_000, completionTokens: 5 } },
          { delayMs: 5 },
        );
      },
    });
    fleet = await Promise.all(
      Array.from({ length: INSTANCES }, async () => {
        const dir = mkdtempSync(join(tmpdir(), 'ctxkit-fleet-'));
        dirs.push(dir);
        return startServeProcess(
          [
            '--store',
            url,
            '--data',
            join(dir, 'data'),
            '--upstream',
            upstream.openAIBaseUrl,
            '--window',
            String(WINDOW),
            '--token',
            KEY,
            // Below the concurrency the test drives (12 conversations and REST calls), so holders wait.
            '--max-held-sessions',
            '8',
          ],
          { cwd: dir },
        );
      }),
    );
  }, 120_000);

  afterAll(async () => {
    for (const served of fleet) served.child.kill('SIGKILL');
    await upstream?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    await database?.drop();
  });

  const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };

  /** One turn of a conversation on instance `at`: a long user message, the reply kept as the client keeps it. */
  async function turn(conversation: Conversation, at: number, tag: string, stream = false): Promise<void> {
    const text = `${tag} ${`fleet context for ${tag} `.repeat(60)}`;
    conversation.messages.push({ role: 'user', content: text });
    conversation.sent.push(text);
    const response = await fetch(`${fleet[at]?.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        ...headers,
        ...(conversation.named !== undefined && { 'x-ctxkit-session': conversation.named }),
      },
      body: JSON.stringify({ model: 'fleet-model', messages: conversation.messages, stream }),
    });
    statuses.push(response.status);
    const raw = await response.text();
    expect(response.status, raw).toBe(200);
    const reply = stream
      ? streamedText(raw)
      : (JSON.parse(raw) as ChatCompletion).choices[0]?.message.content;
    expect(reply).toBe(`ack ${tag}`);
    conversation.messages.push({ role: 'assistant', content: reply ?? '' });
    const id = response.headers.get('x-ctxkit-session') ?? '';
    if (conversation.id === undefined) conversation.id = id;
    // A recognized conversation stays one session whichever instance recognizes it.
    expect(id).toBe(conversation.id);
  }

  async function getJson(at: number, path: string): Promise<unknown> {
    const response = await fetch(`${fleet[at]?.url}${path}`, { headers });
    expect(response.status, path).toBe(200);
    return response.json();
  }

  /** The session's log as exported by instance `at`: its messages in order. */
  async function exportedLog(at: number, id: string): Promise<Array<{ role: string; text: string }>> {
    const response = await fetch(`${fleet[at]?.url}/api/sessions/${encodeURIComponent(id)}/export`, {
      headers,
    });
    expect(response.status).toBe(200);
    return (await response.text())
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { kind: string; role: string; parts: Array<{ text?: string }> })
      .filter((record) => record.kind === 'message')
      .map((record) => ({ role: record.role, text: record.parts.map((part) => part.text ?? '').join('') }));
  }

  /** The same view and statistics of the session from every instance. */
  /**
   * The same view of the session from every instance: the messages the model sees, the summary and the
   * reminder, and what the statistics say of them (messages, roles, turns, edits, window, reserve,
   * thresholds as pressure, the summary's reach). Token estimates are left out: each process calibrates
   * its count per model from the usage the upstream reports to it, so they differ by that ratio.
   */
  async function expectSameViewEverywhere(id: string): Promise<ContextAnswer> {
    const answers = (await Promise.all(
      fleet.map((_, at) => getJson(at, `/api/sessions/${encodeURIComponent(id)}/context`)),
    )) as ContextAnswer[];
    const shown = answers.map(({ view, stats }) => ({
      view,
      messages: stats.messages,
      roles: stats.roles,
      turns: stats.turns,
      edits: stats.edits,
      contextWindow: stats.contextWindow,
      maxOutputTokens: stats.maxOutputTokens,
      clearingAt: stats.thresholds.clearing?.pressure,
      summarizeAt: stats.thresholds.summarize?.pressure,
      summaryThrough: stats.summary?.throughSeq,
    }));
    for (const other of shown.slice(1)) expect(other).toEqual(shown[0]);
    return answers[0] as ContextAnswer;
  }

  /** No message lost, none twice: the log holds what was sent and answered, in order, once each. */
  async function expectWholeLog(conversation: Conversation, at: number): Promise<void> {
    const log = await exportedLog(at, conversation.id ?? '');
    expect(log.filter((message) => message.role === 'user').map((message) => message.text)).toEqual(
      conversation.sent,
    );
    // The last reply enters the session with the client's next request, as the client holds it.
    const replies = conversation.messages.filter((message) => message.role === 'assistant').slice(0, -1);
    expect(log.filter((message) => message.role === 'assistant').map((message) => message.text)).toEqual(
      replies.map((message) => message.content),
    );
  }

  function compactionLines(): CompactionLine[] {
    return fleet.flatMap((served, instance) =>
      served
        .stderr()
        .split('\n')
        .filter((line) => line.includes('"msg":"compaction"'))
        .map((line) => ({ instance, ...(JSON.parse(line) as Omit<CompactionLine, 'instance'>) })),
    );
  }

  it('advances one session through all three instances in turn, each serving the same view', async () => {
    const conversation: Conversation = {
      named: 'fleet-walk',
      id: undefined,
      messages: [{ role: 'system', content: 'You are a fleet test.' }],
      sent: [],
    };
    for (let index = 0; index < 18; index++) {
      await turn(conversation, index % INSTANCES, `walk${index}`, index % 3 === 1);
      await expectSameViewEverywhere('fleet-walk');
    }
    await expectWholeLog(conversation, 2);
    const view = await expectSameViewEverywhere('fleet-walk');
    // The window is small: the session was compacted on the way, and the view shows it.
    expect(view.stats.edits).toBeGreaterThan(0);
    const compacted = new Set(
      compactionLines()
        .filter((line) => line.session.endsWith(':fleet-walk'))
        .map((line) => line.instance),
    );
    expect(
      compacted.size,
      JSON.stringify(compactionLines().filter((line) => line.session.endsWith(':fleet-walk'))),
    ).toBeGreaterThan(1);
  }, 120_000);

  it('advances many sessions through all instances at once, with REST compactions from any instance', async () => {
    const conversations: Conversation[] = Array.from({ length: 12 }, (_, index) => ({
      // Two in three name their session; the rest are recognized from their history.
      named: index % 3 === 2 ? undefined : `fleet-${index}`,
      id: undefined,
      messages: [{ role: 'system', content: `You are fleet agent ${index}.` }],
      sent: [],
    }));
    const compactions: Array<Promise<number>> = [];
    await Promise.all(
      conversations.map(async (conversation, index) => {
        // Each conversation's own sequence of instances, the same on every run.
        const choose = chooser(17 + index);
        for (let step = 0; step < 8; step++) {
          await turn(conversation, choose(INSTANCES), `c${index}s${step}`, step % 4 === 3);
          // Now and then an operator compacts the session from some instance, while its next turn runs.
          if (step % 3 === 1 && conversation.id !== undefined)
            compactions.push(
              fetch(
                `${fleet[choose(INSTANCES)]?.url}/api/sessions/${encodeURIComponent(conversation.id)}/compact`,
                { method: 'POST', headers, body: JSON.stringify({ mode: 'emergency' }) },
              ).then((response) => response.status),
            );
        }
      }),
    );
    expect(await Promise.all(compactions)).toEqual(compactions.map(() => 200));
    expect(statuses.every((status) => status === 200)).toBe(true);
    for (const [index, conversation] of conversations.entries()) {
      await expectWholeLog(conversation, index % INSTANCES);
      await expectSameViewEverywhere(conversation.id ?? '');
    }
  }, 240_000);

  it('reads what one instance offloaded from every other instance', async () => {
    // A tool output over the 20,000-token limit is offloaded as it arrives, by the instance that syncs it.
    const output = Array.from({ length: 3_000 }, (_, line) => `fleet row ${line}: value_${line * 7} ok`).join(
      '\n',
    );
    const messages = [
      { role: 'system', content: 'You are a fleet test.' },
      { role: 'user', content: 'read the file' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: output },
    ];
    const response = await fetch(`${fleet[0]?.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...headers, 'x-ctxkit-session': 'fleet-offload' },
      body: JSON.stringify({ model: 'fleet-model', messages }),
    });
    expect(response.status).toBe(200);
    const view = (await getJson(1, '/api/sessions/fleet-offload/view')) as {
      items: Array<{ mark: string; blobRef?: string }>;
    };
    const ref = view.items.find((item) => item.mark === 'offloaded')?.blobRef;
    expect(ref).toBeDefined();
    const read = await fetch(
      `${fleet[2]?.url}/api/sessions/fleet-offload/offloaded?ref=${encodeURIComponent(ref ?? '')}`,
      { headers },
    );
    expect(read.status).toBe(200);
    expect(await read.text()).toBe(output);
  });

  it('serves one REST session from every instance: made on one, written, configured and deleted on others', async () => {
    const call = (at: number, method: string, path: string, body?: unknown) =>
      fetch(`${fleet[at]?.url}${path}`, {
        method,
        headers,
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
    expect((await call(0, 'POST', '/api/sessions', { id: 'fleet-rest' })).status).toBe(201);
    expect((await call(1, 'POST', '/api/sessions', { id: 'fleet-rest' })).status).toBe(409);
    const appended = await call(1, 'POST', '/api/sessions/fleet-rest/messages', {
      messages: [{ role: 'user', parts: [{ type: 'text', text: 'hello from the fleet' }] }],
    });
    expect(appended.status).toBe(201);
    expect(((await getJson(2, '/api/sessions/fleet-rest')) as { messages: number }).messages).toBe(1);
    const patched = await call(0, 'PATCH', '/api/sessions/fleet-rest/policy', {
      summarize: { trigger: 0.95 },
    });
    expect(patched.status).toBe(200);
    expect(await getJson(1, '/api/sessions/fleet-rest/policy')).toMatchObject({
      override: { summarize: { trigger: 0.95 } },
    });
    expect(await getJson(2, '/api/sessions/fleet-rest/context')).toMatchObject({
      stats: { thresholds: { summarize: { pressure: 0.95 } } },
    });
    expect((await call(2, 'DELETE', '/api/sessions/fleet-rest')).status).toBe(200);
    expect((await call(0, 'GET', '/api/sessions/fleet-rest')).status).toBe(404);
    expect((await call(1, 'GET', '/api/sessions/fleet-rest/context')).status).toBe(404);
  });

  it('never has two instances compacting one session at once, even when all three are asked at the same moment', async () => {
    const ids = ['fleet-0', 'fleet-1', 'fleet-3', 'fleet-4'];
    const walks = new Map(
      ids.map((id) => [
        id,
        {
          named: id,
          id,
          messages: [{ role: 'system', content: 'You are a fleet test.' } as ChatMessage],
          sent: [],
        } satisfies Conversation,
      ]),
    );
    for (let round = 0; round < 4; round++) {
      // New turns to compact, then every instance asked to compact every session at once.
      for (const [index, conversation] of [...walks.values()].entries()) {
        await turn(conversation, (round + index) % INSTANCES, `r${round}w${index}a`);
        await turn(conversation, (round + index + 1) % INSTANCES, `r${round}w${index}b`);
      }
      const answers = await Promise.all(
        ids.flatMap((id) =>
          fleet.map((served) =>
            fetch(`${served.url}/api/sessions/${id}/compact`, {
              method: 'POST',
              headers,
              body: JSON.stringify({ mode: 'summarize' }),
            }).then((response) => response.status),
          ),
        ),
      );
      expect(answers).toEqual(answers.map(() => 200));
    }
    const lines = compactionLines();
    const bySession = new Map<string, CompactionLine[]>();
    for (const line of lines) bySession.set(line.session, [...(bySession.get(line.session) ?? []), line]);
    let compared = 0;
    for (const [session, compactionsOfSession] of bySession)
      for (const a of compactionsOfSession)
        for (const b of compactionsOfSession) {
          if (a.instance >= b.instance) continue;
          compared++;
          const apart = a.finishedAt <= b.startedAt || b.finishedAt <= a.startedAt;
          expect(apart, `${session}: ${JSON.stringify(a)} overlaps ${JSON.stringify(b)}`).toBe(true);
        }
    // Not vacuous: each of these sessions was compacted by more than one instance, asked at once (the
    // first to hold it compacts; the others find less or nothing left).
    for (const id of ids) {
      const instances = new Set(
        lines.filter((line) => line.session.endsWith(`:${id}`)).map((line) => line.instance),
      );
      expect(instances.size, id).toBeGreaterThan(1);
    }
    expect(compared).toBeGreaterThan(10);
  });

  it('stops every instance cleanly on SIGTERM', async () => {
    expect(await Promise.all(fleet.map((served) => served.stop()))).toEqual(fleet.map(() => 0));
  });
});
