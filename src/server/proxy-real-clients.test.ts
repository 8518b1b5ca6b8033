/**
 * Acceptance of `ctxkit serve` with the clients agents really use: the official `openai` and
 * `@anthropic-ai/sdk` clients and the AI SDK (`generateText` / `streamText` over `@ai-sdk/openai`'s Chat
 * Completions model and `@ai-sdk/anthropic`), streaming and not, pointed at the proxy, which forwards to
 * a local upstream holding a 12,000-token window (window-enforcing-upstream.ts: every request measured,
 * exact o200k; one over the window refused with the provider's overflow error and counted).
 *
 * Long recorded sessions from the corpus are resent call by call as their agents resent them: before
 * each recorded assistant message the client sends the whole history so far, with the session's tools.
 * Most runs then append the RECORDED assistant message (what the agent really did next) and the results
 * after it; the live runs append the reply the SDK returned (the upstream answers with the recorded
 * message, so the recorded results still follow), which is how a proxy must recognize a conversation
 * without a session header.
 *
 * Every call must get its answer; the upstream must never receive more than its window; the proxy's
 * headers must say what it saved; no client key may reach ctxkit's records.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import Anthropic from '@anthropic-ai/sdk';
import type {
  MessageParam as AnthropicMessageParam,
  Tool as AnthropicTool,
} from '@anthropic-ai/sdk/resources/messages';
import {
  type AssistantModelMessage,
  generateText,
  jsonSchema,
  type ModelMessage,
  streamText,
  type ToolSet,
  tool,
} from 'ai';
import OpenAI from 'openai';
import { ChatCompletionStream } from 'openai/lib/ChatCompletionStream';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toAnthropicMessages } from '../adapters/anthropic-messages.ts';
import { toOpenAIChat } from '../adapters/openai-chat.ts';
import { toAnthropicTool, toOpenAITool } from '../adapters/tool-definitions.ts';
import type { Message, Part, Transcript } from '../core/message.ts';
import { textOf, toolCallsOf } from '../core/message.ts';
import { PRESETS } from '../core/policy/index.ts';
import { createExactCounter } from '../core/tokens/exact-counter.ts';
import type { ToolDefinition } from '../core/tool-definition.ts';
import { type ContextManager, createContextManager } from '../engine/context-manager.ts';
import { RequestMeasurer } from '../replay/measure-request.ts';
import type { BlobStore } from '../store/blob-store.ts';
import { createMemoryBlobStore } from '../store/memory-blob-store.ts';
import { createMemorySessionStore } from '../store/memory-session-store.ts';
import type { SessionStore } from '../store/session-store.ts';
import { createMemoryTraceStore, type TraceStore } from '../store/trace-store.ts';
import { LONG_SESSION, loadCorpusSession } from '../testing/corpus.ts';
import { identifyClient } from './client-identity.ts';
import { RESPONSE_HEADERS } from './proxy-responses.ts';
import { type RunningProxy, startProxyServer } from './start-proxy-server.ts';
import {
  DEFAULT_ANSWER,
  type MeasuredWireRequest,
  type ModelWireFormat,
  measureWireRequest,
  startWindowEnforcingUpstream,
  type UpstreamRequestFigure,
  type WindowEnforcingUpstream,
} from './testing/window-enforcing-upstream.ts';

/** Small enough that every session below outgrows it several times over. */
const WINDOW = 12_000;
const MAX_TOKENS = 1_024;
/** The most a request may hold: what the upstream refuses above. */
const INPUT_ROOM = WINDOW - MAX_TOKENS;
const OPENAI_MODEL = 'gpt-4o';
const ANTHROPIC_MODEL = 'claude-sonnet-4-6';
const CALL_TIMEOUT_MS = 60_000;
/** The part of a session the defect tests resend: a few calls, all inside the window. */
const REPLAY_TWICE_MESSAGES = 12;

type ClientName = 'openai' | 'anthropic' | 'ai-sdk-openai' | 'ai-sdk-anthropic';

/** Key prefixes per client, distinctive enough that finding a key anywhere is a leak. */
const KEY_PREFIXES: Record<ClientName, string> = {
  openai: 'sk-proj-acceptanceOpenAIKey-7f3a9c2e51',
  anthropic: 'sk-ant-api03-acceptanceAnthropicKey-4d8b6e0f',
  'ai-sdk-openai': 'sk-proj-acceptanceAiSdkOpenAIKey-2b7e91c4',
  'ai-sdk-anthropic': 'sk-ant-api03-acceptanceAiSdkAnthropicKey-9e1f3a6d',
};
/** Every key a test used, for the scan of ctxkit's records. */
const usedKeys = new Set<string>();

/**
 * Each run is its own owner (its own key): the runs resend the same recorded conversations, and one
 * owner's conversation index would tie a run's calls to the sessions of an earlier run (see the
 * replayed-conversation test below).
 */
function keyOf(client: ClientName, label: string): string {
  const key = `${KEY_PREFIXES[client]}-${label}`;
  usedKeys.add(key);
  return key;
}

const FORMAT_OF: Record<ClientName, ModelWireFormat> = {
  openai: 'openai',
  anthropic: 'anthropic',
  'ai-sdk-openai': 'openai',
  'ai-sdk-anthropic': 'anthropic',
};

/** Long sessions with big tool outputs (ponyc: up to 7k tokens; pi: up to 12.6k, past the window alone). */
const SESSIONS = {
  ponyc4595: { file: 'openhands__multi_swe_bench_ponylang__ponyc-4595.jsonl' },
  ponyc4593: { file: 'openhands__multi_swe_bench_ponylang__ponyc-4593.jsonl' },
  sweAgent: { file: 'swe-agent__ctf_i_got_id_demo.jsonl' },
  // The first 80 messages (36 calls, ~68k tokens): the whole 979 would take minutes per client.
  pi: { file: LONG_SESSION, messages: 80 },
} as const;
type SessionName = keyof typeof SESSIONS;

interface RunCase {
  client: ClientName;
  stream: boolean;
  session: SessionName;
  /** Name the session with `x-ctxkit-session`; otherwise the proxy recognizes (or forks) it. */
  header: boolean;
  /** Append the reply the SDK returned, not the recorded one. */
  live: boolean;
  /**
   * The client sends replies back without their reasoning (the `openai` stream accumulator and the AI
   * SDK's Chat Completions model drop `reasoning_content`, as DeepSeek asks clients to): the proxy must
   * still recognize the conversation (checked by a test of its own below each such run).
   */
  reasoningDropped?: true;
}

const RUNS: RunCase[] = [
  { client: 'openai', stream: false, session: 'ponyc4595', header: true, live: false },
  { client: 'openai', stream: true, session: 'pi', header: false, live: false },
  { client: 'anthropic', stream: false, session: 'sweAgent', header: false, live: false },
  { client: 'anthropic', stream: true, session: 'ponyc4593', header: true, live: false },
  { client: 'ai-sdk-openai', stream: false, session: 'ponyc4593', header: false, live: false },
  { client: 'ai-sdk-openai', stream: true, session: 'sweAgent', header: true, live: false },
  { client: 'ai-sdk-anthropic', stream: false, session: 'pi', header: true, live: false },
  { client: 'ai-sdk-anthropic', stream: true, session: 'ponyc4595', header: false, live: false },
  { client: 'openai', stream: false, session: 'ponyc4595', header: false, live: true },
  { client: 'openai', stream: true, session: 'ponyc4595', header: false, live: true },
  { client: 'anthropic', stream: false, session: 'ponyc4595', header: false, live: true },
  { client: 'anthropic', stream: true, session: 'ponyc4595', header: false, live: true },
  { client: 'ai-sdk-openai', stream: false, session: 'ponyc4595', header: false, live: true },
  { client: 'ai-sdk-openai', stream: true, session: 'ponyc4595', header: false, live: true },
  { client: 'ai-sdk-anthropic', stream: false, session: 'ponyc4595', header: false, live: true },
  { client: 'ai-sdk-anthropic', stream: true, session: 'ponyc4595', header: false, live: true },
  // pi: reasoning, text answers between tool calls, single results larger than the window.
  { client: 'openai', stream: true, session: 'pi', header: false, live: true, reasoningDropped: true },
  { client: 'anthropic', stream: false, session: 'pi', header: false, live: true },
  {
    client: 'ai-sdk-openai',
    stream: false,
    session: 'pi',
    header: false,
    live: true,
    reasoningDropped: true,
  },
  { client: 'ai-sdk-anthropic', stream: true, session: 'pi', header: false, live: true },
  // Named and live: the session's log must take the replies the client sends back.
  { client: 'anthropic', stream: true, session: 'sweAgent', header: true, live: true },
  { client: 'ai-sdk-openai', stream: false, session: 'sweAgent', header: true, live: true },
];

// ---------------------------------------------------------------- the servers

/** One measurer for the client's requests and the upstream's, so both are counted alike. */
const measurer = new RequestMeasurer(createExactCounter('o200k'));
let upstream: WindowEnforcingUpstream;
let proxy: RunningProxy;
let manager: ContextManager;
let store: SessionStore;
let blobs: BlobStore;
let trace: TraceStore;
const logLines: string[] = [];
const transcripts = new Map<SessionName, Transcript>();

beforeAll(async () => {
  for (const [name, session] of Object.entries(SESSIONS) as [SessionName, (typeof SESSIONS)[SessionName]][])
    transcripts.set(
      name,
      sliced(loadCorpusSession(session.file), 'messages' in session ? session.messages : undefined),
    );
  upstream = await startWindowEnforcingUpstream({
    window: WINDOW,
    models: [OPENAI_MODEL, ANTHROPIC_MODEL],
    measurer,
  });
  store = createMemorySessionStore();
  blobs = createMemoryBlobStore();
  trace = createMemoryTraceStore();
  manager = createContextManager({ policy: PRESETS.default, store, blobs, trace });
  proxy = await startProxyServer({
    manager,
    upstream: upstream.server.openAIBaseUrl,
    contextWindow: WINDOW,
    // The log is scanned for keys too.
    logger: pino({ level: 'debug' }, { write: (line: string) => void logLines.push(line) }),
  });
});

afterAll(async () => {
  await proxy?.close();
  await upstream?.close();
});

// ---------------------------------------------------------------- the runs

describe('ctxkit serve with real clients, against an upstream holding a 12,000-token window', () => {
  for (const run of RUNS) {
    it(
      titleOf(run),
      async () => {
        const transcript = sessionOf(run.session);
        const key = keyOf(run.client, `run${RUNS.indexOf(run)}`);
        const result = await replayThroughProxy(run, transcript, key);

        // Every recorded call was made, each with one HTTP request, each answered (the SDKs threw on none).
        expect(result.calls).toHaveLength(callIndexes(transcript.messages).length);
        for (const call of result.calls) {
          expect(call.status).toBe(200);
          expect(call.answer).toEqual(call.expectedAnswer);
        }

        // The upstream was never sent more than its window, and refused nothing.
        expect(result.upstream.length).toBeGreaterThanOrEqual(result.calls.length);
        expect(result.upstream.filter((request) => request.overWindow)).toEqual([]);
        for (const request of result.upstream) {
          expect(request.maxTokens).toBe(MAX_TOKENS);
          expect(request.input).toBeLessThanOrEqual(INPUT_ROOM);
        }

        // The history outgrew the window: that is what the proxy is for.
        const overWindow = result.calls.filter((call) => call.client.input > INPUT_ROOM);
        expect(overWindow.length).toBeGreaterThan(0);

        // Its headers say what it did: the window it held to, what it sent, what it saved.
        for (const call of result.calls) {
          expect(call.contextWindow).toBe(WINDOW);
          expect(call.sent).toBeGreaterThan(0);
          // The header is the proxy's own o200k count of what it sent (framing counted its own way); the
          // window itself is held as the upstream measures it, checked above. They agree within 1 %.
          expect(call.sent).toBeLessThanOrEqual(Math.ceil(INPUT_ROOM * 1.01));
          expect(call.edits).toBeGreaterThanOrEqual(0);
        }
        for (const call of overWindow) expect(call.saved).toBeGreaterThan(0);
        expect(result.calls.some((call) => call.edits > 0)).toBe(true);

        // The session: the one named, or one recognized call after call in a live conversation.
        const sessions = result.calls.map((call) => call.session);
        if (run.header) expect(sessions).toEqual(sessions.map(() => result.sessionId));
        else if (run.live) expectOneSession(result);
        for (const session of sessions) expect(session).toMatch(run.header ? /^acceptance-/ : /^conv_/);

        // The key reached the upstream as the credential header and nowhere else.
        expectKeyOnlyAsCredential(result, key);
        if (run.header) await expectNamedSessionHoldsNoKey(run, result, key);

        figures.push(summaryOf(run, result));
        results.set(run, result);
      },
      CALL_TIMEOUT_MS,
    );
    // The reply enters the session as the client sends it back, so a client that drops its reasoning
    // still continues its session call after call.
    if (run.reasoningDropped)
      it(`${titleOf(run)}: one session, recognized call after call`, () => {
        const result = results.get(run);
        if (!result) throw new Error('the run above did not finish');
        expectOneSession(result);
      });
  }

  // The same owner sends a conversation a second time with the same replies (a task re-run against a
  // deterministic model, a benchmark harness): the first run's session holds every prefix first, so the
  // second run's first call forks from it, and then its own session, recorded last, is continued, even
  // on the last call, whose whole history the first run's session also holds.
  it(
    'continues the session of a conversation the same owner sends a second time',
    async () => {
      const run: RunCase = {
        client: 'openai',
        stream: false,
        session: 'ponyc4595',
        header: false,
        live: true,
      };
      const transcript = sliced(sessionOf('ponyc4595'), REPLAY_TWICE_MESSAGES);
      const key = keyOf(run.client, 'replayed-twice');
      const first = await replayThroughProxy(run, transcript, key);
      const second = await replayThroughProxy(run, transcript, key);
      const firstSessions = first.calls.map((call) => call.session);
      const secondSessions = second.calls.map((call) => call.session);
      // The first conversation is recognized call after call (as in the live runs above)…
      expect(firstSessions).toEqual(firstSessions.map(() => firstSessions[0]));
      // …and so must the second be, in a session of its own.
      expect(secondSessions[0]).not.toBe(firstSessions[0]);
      expect(secondSessions).toEqual(secondSessions.map(() => secondSessions[0]));
    },
    CALL_TIMEOUT_MS,
  );

  // `x-ctxkit-tokens-saved` counts the client's request and the one sent with one counter, so a call
  // ctxkit forwarded unchanged reports none.
  it(
    'reports no tokens saved on a call it forwarded unchanged',
    async () => {
      const run: RunCase = {
        client: 'openai',
        stream: false,
        session: 'ponyc4595',
        header: false,
        live: true,
      };
      // The first calls of the session, all well inside the window.
      const transcript = sliced(sessionOf('ponyc4595'), REPLAY_TWICE_MESSAGES);
      const result = await replayThroughProxy(run, transcript, keyOf(run.client, 'unchanged'));
      expect(result.upstream).toHaveLength(result.calls.length);
      const unchanged = result.calls.flatMap((call, index) => {
        const upstreamInput = result.upstream[index]?.input;
        return upstreamInput === call.client.input
          ? [{ index, upstreamInput, sent: call.sent, saved: call.saved }]
          : [];
      });
      expect(unchanged.length).toBeGreaterThan(1);
      expect(unchanged).toEqual(unchanged.map((call) => ({ ...call, saved: 0 })));
    },
    CALL_TIMEOUT_MS,
  );

  it('sent the upstream nothing it refuses: Anthropic requests kept the API’s rules, thinking as signed', () => {
    const anthropic = upstream.server.requests.filter((request) => request.format === 'anthropic');
    expect(anthropic.length).toBeGreaterThan(0);
    expect(upstream.server.requests.flatMap((request) => request.refusal ?? [])).toEqual([]);
  });

  it(
    'keeps no client key in the session store, offloaded content, trace or log',
    async () => {
      await manager.flushTrace();
      const listed = await store.list();
      // The runs above made sessions; with none, this test would prove nothing.
      expect(listed.length).toBeGreaterThan(0);
      const texts: string[] = [await trace.exportJsonl(), logLines.join('')];
      for (const session of listed) {
        texts.push(session.id, JSON.stringify(await store.load(session.id)));
        for (const blob of await blobs.list(session.id)) texts.push(await blobs.get(session.id, blob.ref));
      }
      expect(logLines.length).toBeGreaterThan(0);
      expect(usedKeys.size).toBeGreaterThan(0);
      const leaked = [...usedKeys].filter((key) => texts.some((text) => text.includes(key)));
      expect(leaked).toEqual([]);
      if (process.env.CTXKIT_ACCEPTANCE_FIGURES) printFigures(listed.length, texts);
    },
    CALL_TIMEOUT_MS,
  );
});

/** The results of the runs, for the checks made apart from them. */
const results = new Map<RunCase, RunResult>();

/** A conversation sent without a header was recognized on every call: one session throughout. */
function expectOneSession(result: RunResult): void {
  const sessions = result.calls.map((call) => call.session);
  expect(sessions).toEqual(sessions.map(() => sessions[0]));
}

function titleOf(run: RunCase): string {
  return [
    run.client,
    run.stream ? 'streamed' : 'not streamed',
    `${run.session} resent call by call`,
    run.header ? 'named by x-ctxkit-session' : 'without a session header',
    run.live ? 'appending the reply it got' : 'appending the recorded reply',
  ].join(', ');
}

// ---------------------------------------------------------------- replaying a session through a client

interface CallFigure {
  status: number;
  /** The client's request, measured as the upstream measures. */
  client: MeasuredWireRequest;
  session: string | null;
  sent: number;
  saved: number;
  edits: number;
  contextWindow: number;
  answer: Answer;
  expectedAnswer: Answer;
}

interface RunResult {
  sessionId: string | undefined;
  calls: CallFigure[];
  /** The model requests the upstream received during the run. */
  upstream: UpstreamRequestFigure[];
  /** The distinct credential headers the client sent (one set, if it is consistent). */
  clientCredentials: Credentials[];
}

async function replayThroughProxy(run: RunCase, transcript: Transcript, apiKey: string): Promise<RunResult> {
  const exchanges: HttpExchange[] = [];
  const sessionId = run.header
    ? `acceptance-${run.client}-${run.stream ? 'stream' : 'json'}-${run.session}-${run.live ? 'live' : 'recorded'}`
    : undefined;
  const driver = DRIVERS[run.client]({
    proxyUrl: proxy.url,
    apiKey,
    sessionId,
    tools: offeredTools(transcript),
    fetch: observedFetch(exchanges),
  });
  const upstreamFrom = upstream.requests.length;
  try {
    const calls = await replay(driver, transcript, run, exchanges);
    return {
      sessionId,
      calls,
      upstream: upstream.requests.slice(upstreamFrom),
      clientCredentials: [...new Set(exchanges.map((exchange) => JSON.stringify(exchange.credentials)))].map(
        (text) => JSON.parse(text) as Credentials,
      ),
    };
  } finally {
    upstream.answerWith(undefined);
  }
}

/**
 * The recorded session, call by call: before each recorded assistant message the client sends the
 * history so far; then it appends the recorded message (or, live, the reply it got) and what followed.
 */
async function replay<M>(
  driver: ClientDriver<M>,
  transcript: Transcript,
  run: RunCase,
  exchanges: HttpExchange[],
): Promise<CallFigure[]> {
  const { messages } = transcript;
  const system = transcript.system.join('\n\n');
  const indexes = callIndexes(messages);
  let history = driver.toNative(messages.slice(0, indexes[0]));
  const calls: CallFigure[] = [];
  for (const [position, index] of indexes.entries()) {
    const recorded = messages[index] as Message;
    if (run.live) upstream.answerWith(recorded.parts);
    const before = exchanges.length;
    const outcome = await driver.call({ system, history, stream: run.stream });
    const made = exchanges.slice(before);
    // One HTTP request per call: no retry hid an error (every client is built with maxRetries 0).
    expect(made, `call ${position}`).toHaveLength(1);
    calls.push(
      callFigure(made[0] as HttpExchange, outcome.answer, run.live ? answerOf(recorded.parts) : DEFAULT),
    );
    const next = indexes[position + 1] ?? messages.length;
    history = [
      ...history,
      ...(run.live ? outcome.reply : driver.toNative([recorded])),
      ...driver.toNative(messages.slice(index + 1, next)),
    ];
  }
  return calls;
}

/** Where the agent called its model: every assistant message with something before it. */
function callIndexes(messages: readonly Message[]): number[] {
  return messages.flatMap((message, index) => (message.role === 'assistant' && index > 0 ? [index] : []));
}

function callFigure(exchange: HttpExchange, answer: Answer, expectedAnswer: Answer): CallFigure {
  const header = (name: string) => exchange.headers.get(name);
  const number = (name: string) => {
    const value = header(name);
    // A missing or non-numeric header fails the assertions that read it.
    return value === null || !/^\d+$/.test(value) ? Number.NaN : Number(value);
  };
  return {
    status: exchange.status,
    client: measureWireRequest(measurer, exchange.format, exchange.body),
    session: header(RESPONSE_HEADERS.session),
    sent: number(RESPONSE_HEADERS.inputTokens),
    saved: number(RESPONSE_HEADERS.tokensSaved),
    edits: number(RESPONSE_HEADERS.edits),
    contextWindow: number(RESPONSE_HEADERS.contextWindow),
    answer,
    expectedAnswer,
  };
}

// ---------------------------------------------------------------- answers

/** What an answer said, as every SDK can report it: its text and the tools it called. */
interface Answer {
  text: string;
  toolCalls: string[];
}

const DEFAULT: Answer = { text: DEFAULT_ANSWER, toolCalls: [] };

function answerOf(parts: readonly Part[]): Answer {
  return {
    text: textOf({ parts: [...parts] }),
    toolCalls: toolCallsOf({ parts: [...parts] }).map((call) => call.name),
  };
}

// ---------------------------------------------------------------- the clients

interface ClientSetup {
  proxyUrl: string;
  apiKey: string;
  sessionId: string | undefined;
  tools: readonly ToolDefinition[];
  fetch: typeof fetch;
}

interface ClientDriver<M> {
  /** Recorded messages as this client's agent would hold them. */
  toNative(messages: readonly Message[]): M[];
  call(request: { system: string; history: readonly M[]; stream: boolean }): Promise<{
    answer: Answer;
    /** The reply as the SDK returned it, ready to append to the history. */
    reply: M[];
  }>;
}

const DRIVERS: Record<ClientName, (setup: ClientSetup) => ClientDriver<unknown>> = {
  openai: (setup) => openAIDriver(setup) as ClientDriver<unknown>,
  anthropic: (setup) => anthropicDriver(setup) as ClientDriver<unknown>,
  'ai-sdk-openai': (setup) => aiSdkDriver(setup, 'openai') as ClientDriver<unknown>,
  'ai-sdk-anthropic': (setup) => aiSdkDriver(setup, 'anthropic') as ClientDriver<unknown>,
};

function sessionHeaders(setup: ClientSetup): Record<string, string> {
  return setup.sessionId === undefined ? {} : { [RESPONSE_HEADERS.session]: setup.sessionId };
}

function openAIDriver(setup: ClientSetup): ClientDriver<ChatCompletionMessageParam> {
  const client = new OpenAI({
    baseURL: `${setup.proxyUrl}/v1`,
    apiKey: setup.apiKey,
    maxRetries: 0,
    fetch: setup.fetch,
    defaultHeaders: sessionHeaders(setup),
  });
  const tools = setup.tools.map(toOpenAITool);
  return {
    toNative: (messages) =>
      toOpenAIChat({ system: [], messages: [...messages] }) as ChatCompletionMessageParam[],
    async call({ system, history, stream }) {
      const params = {
        model: OPENAI_MODEL,
        messages: [...(system ? [{ role: 'system' as const, content: system }] : []), ...history],
        tools,
        max_tokens: MAX_TOKENS,
      };
      const completion = stream
        ? await ChatCompletionStream.fromReadableStream(
            (await client.chat.completions.create({ ...params, stream: true })).toReadableStream(),
          ).finalChatCompletion()
        : await client.chat.completions.create(params);
      const message = completion.choices[0]?.message;
      if (!message) throw new Error('the completion has no choice');
      return {
        answer: {
          text: message.content ?? '',
          toolCalls: (message.tool_calls ?? []).map((call) =>
            call.type === 'function' ? call.function.name : '',
          ),
        },
        reply: [message as ChatCompletionMessageParam],
      };
    },
  };
}

function anthropicDriver(setup: ClientSetup): ClientDriver<AnthropicMessageParam> {
  const client = new Anthropic({
    baseURL: setup.proxyUrl,
    apiKey: setup.apiKey,
    maxRetries: 0,
    fetch: setup.fetch,
    defaultHeaders: sessionHeaders(setup),
  });
  const tools = setup.tools.map(toAnthropicTool) as AnthropicTool[];
  return {
    toNative: (messages) =>
      toAnthropicMessages({ system: [], messages: messages.map(signedReasoning) })
        .messages as AnthropicMessageParam[],
    async call({ system, history, stream }) {
      const params = {
        model: ANTHROPIC_MODEL,
        max_tokens: MAX_TOKENS,
        ...(system && { system }),
        messages: [...history],
        tools,
      };
      const message = stream
        ? await client.messages.stream(params).finalMessage()
        : await client.messages.create(params);
      return {
        answer: {
          text: message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n'),
          toolCalls: message.content.flatMap((block) => (block.type === 'tool_use' ? [block.name] : [])),
        },
        reply: [{ role: 'assistant', content: message.content } as AnthropicMessageParam],
      };
    },
  };
}

/**
 * Anthropic returns every thinking block signed, and a client sends it back so: the recorded reasoning as
 * if this upstream had answered it (signed by its signer, redacted data issued by it), since the upstream
 * refuses thinking it did not sign.
 */
function signedReasoning(message: Message): Message {
  if (!message.parts.some((part) => part.type === 'reasoning')) return message;
  return {
    ...message,
    parts: message.parts.map((part) => {
      if (part.type !== 'reasoning') return part;
      if (part.redactedData !== undefined) return { ...part, redactedData: upstream.signer.redactedData() };
      return { ...part, signature: upstream.signer.sign(part.text) };
    }),
  };
}

function aiSdkDriver(setup: ClientSetup, provider: ModelWireFormat): ClientDriver<ModelMessage> {
  const model =
    provider === 'openai'
      ? createOpenAI({ baseURL: `${setup.proxyUrl}/v1`, apiKey: setup.apiKey, fetch: setup.fetch }).chat(
          OPENAI_MODEL,
        )
      : createAnthropic({ baseURL: `${setup.proxyUrl}/v1`, apiKey: setup.apiKey, fetch: setup.fetch })(
          ANTHROPIC_MODEL,
        );
  const tools: ToolSet = Object.fromEntries(
    setup.tools.map((definition) => [
      definition.name,
      // No `execute`: the agent runs its tools itself, so each call is one model step.
      tool({
        ...(definition.description !== undefined && { description: definition.description }),
        inputSchema: jsonSchema(definition.parameters ?? { type: 'object' }),
      }),
    ]),
  );
  return {
    toNative: toModelMessages,
    async call({ system, history, stream }) {
      const settings = {
        model,
        ...(system && { instructions: system }),
        messages: [...history],
        tools,
        maxOutputTokens: MAX_TOKENS,
        maxRetries: 0,
        headers: sessionHeaders(setup),
      };
      if (!stream) {
        const result = await generateText(settings);
        return {
          answer: { text: result.text, toolCalls: result.toolCalls.map((call) => call.toolName) },
          reply: result.responseMessages,
        };
      }
      const errors: unknown[] = [];
      const result = streamText({ ...settings, onError: ({ error }) => void errors.push(error) });
      await result.consumeStream();
      if (errors.length > 0) throw errors[0];
      const [text, toolCalls, reply] = await Promise.all([
        result.text,
        result.toolCalls,
        result.responseMessages,
      ]);
      return { answer: { text, toolCalls: toolCalls.map((call) => call.toolName) }, reply };
    },
  };
}

/** Recorded messages as an AI SDK agent holds them (`ModelMessage`). */
function toModelMessages(messages: readonly Message[]): ModelMessage[] {
  return messages.flatMap((message): ModelMessage[] => {
    if (message.role === 'user') return [{ role: 'user', content: textOf(message) }];
    if (message.role === 'tool') {
      return message.parts.flatMap((part): ModelMessage[] =>
        part.type === 'tool-result'
          ? [
              {
                role: 'tool',
                content: [
                  {
                    type: 'tool-result',
                    toolCallId: part.callId,
                    toolName: part.name,
                    output: { type: part.isError ? 'error-text' : 'text', value: part.content },
                  },
                ],
              },
            ]
          : [],
      );
    }
    const content = message.parts.flatMap((part): Exclude<AssistantModelMessage['content'], string> => {
      if (part.type === 'text') return [{ type: 'text', text: part.text }];
      if (part.type === 'reasoning') return [{ type: 'reasoning', text: part.text }];
      if (part.type === 'tool-call')
        return [
          { type: 'tool-call', toolCallId: part.callId, toolName: part.name, input: argsOf(part.args) },
        ];
      return [];
    });
    return content.length > 0 ? [{ role: 'assistant', content }] : [];
  });
}

function argsOf(args: string): unknown {
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return {};
  }
}

/** The tools a recorded session calls, each taking any object (transcripts do not record schemas). */
function offeredTools(transcript: Transcript): ToolDefinition[] {
  const names = new Set(
    transcript.messages.flatMap((message) => toolCallsOf(message).map((call) => call.name)),
  );
  return [...names].map((name) => ({
    name,
    description: `The session's "${name}" tool.`,
    parameters: { type: 'object', properties: {}, additionalProperties: true },
  }));
}

// ---------------------------------------------------------------- HTTP, as the clients saw it

/** The credential headers of a request. */
interface Credentials {
  authorization: string | undefined;
  apiKey: string | undefined;
}

interface HttpExchange {
  format: ModelWireFormat;
  credentials: Credentials;
  body: unknown;
  status: number;
  headers: Headers;
}

/** The global fetch, recording each request's body and each response's status and headers. */
function observedFetch(exchanges: HttpExchange[]): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const response = await fetch(input, init);
    const url = input instanceof Request ? input.url : String(input);
    const headers = new Headers(init?.headers);
    exchanges.push({
      format: url.endsWith('/messages') ? 'anthropic' : 'openai',
      credentials: {
        authorization: headers.get('authorization') ?? undefined,
        apiKey: headers.get('x-api-key') ?? undefined,
      },
      body: typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined,
      status: response.status,
      headers: response.headers,
    });
    return response;
  }) as typeof fetch;
}

// ---------------------------------------------------------------- keys

/**
 * The upstream got the client's key in the credential header the client put it in (the Anthropic SDK
 * sends its key as a Bearer token, the AI SDK's Anthropic provider as x-api-key), and nowhere else.
 */
function expectKeyOnlyAsCredential(result: RunResult, key: string): void {
  expect(result.clientCredentials).toHaveLength(1);
  const sent = result.clientCredentials[0] as Credentials;
  expect([sent.authorization, sent.apiKey].filter((value) => value?.includes(key))).toHaveLength(1);
  for (const request of result.upstream) {
    expect({ authorization: request.authorization, apiKey: request.apiKey }).toEqual(sent);
    expect(request.rawBody.includes(key)).toBe(false);
    expect(request.otherHeaders.includes(key)).toBe(false);
  }
}

/** The named session's records (store id `<owner>:<id>`, the owner a digest of the key) hold no key. */
async function expectNamedSessionHoldsNoKey(run: RunCase, result: RunResult, key: string): Promise<void> {
  const sent = result.clientCredentials[0] as Credentials;
  const headers = new Headers();
  if (sent.authorization !== undefined) headers.set('authorization', sent.authorization);
  if (sent.apiKey !== undefined) headers.set('x-api-key', sent.apiKey);
  const identified = identifyClient(headers, FORMAT_OF[run.client], [], undefined);
  if (!('identity' in identified)) throw new Error(identified.refused);
  const records = await manager.history(`${identified.identity.owner}:${result.sessionId}`);
  expect(records.log.length).toBeGreaterThan(0);
  expect(JSON.stringify(records).includes(key)).toBe(false);
}

// ---------------------------------------------------------------- sessions and figures

function sessionOf(name: SessionName): Transcript {
  const transcript = transcripts.get(name);
  if (!transcript) throw new Error(`session ${name} not loaded`);
  return transcript;
}

function sliced(transcript: Transcript, messages: number | undefined): Transcript {
  return messages === undefined
    ? transcript
    : { ...transcript, messages: transcript.messages.slice(0, messages) };
}

interface RunSummary {
  run: string;
  calls: number;
  overWindowCalls: number;
  upstreamRequests: number;
  maxClientInput: number;
  maxUpstreamInput: number;
  saved: number;
  sessions: number;
  /** Per call: the client's input, what the proxy sent, saved, edits. */
  perCall: string[];
}

const figures: RunSummary[] = [];

function summaryOf(run: RunCase, result: RunResult): RunSummary {
  return {
    run: `${run.client} ${run.stream ? 'stream' : 'json'} ${run.session} ${run.header ? 'header' : 'no-header'} ${run.live ? 'live' : 'recorded'}`,
    calls: result.calls.length,
    overWindowCalls: result.calls.filter((call) => call.client.input > INPUT_ROOM).length,
    upstreamRequests: result.upstream.length,
    maxClientInput: Math.max(...result.calls.map((call) => call.client.input)),
    maxUpstreamInput: Math.max(...result.upstream.map((request) => request.input)),
    saved: result.calls.reduce((sum, call) => sum + call.saved, 0),
    sessions: new Set(result.calls.map((call) => call.session)).size,
    perCall: result.calls.map((call) => `${call.client.input}/${call.sent}/${call.saved}/${call.edits}`),
  };
}

/** Acceptance figures, printed only when asked (`CTXKIT_ACCEPTANCE_FIGURES=1`). */
function printFigures(sessions: number, texts: readonly string[]): void {
  const scanned = texts.reduce((sum, text) => sum + text.length, 0);
  process.stdout.write(
    `${JSON.stringify({ window: WINDOW, maxTokens: MAX_TOKENS, runs: figures, storeSessions: sessions, scannedChars: scanned }, null, 1)}\n`,
  );
}
