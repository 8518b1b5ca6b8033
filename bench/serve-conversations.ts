/**
 * The conversations `bench/serve.ts` sends: corpus sessions of coding agents (OpenHands, SWE-agent, pi)
 * as OpenAI Chat Completions requests. Each request resends the conversation's whole history, one turn
 * longer than the last (the model's reply, then the user message or tool results that followed it), and
 * the upstream answers with the corpus's next assistant message (tool calls included), so the history the
 * client resends is exactly what the proxy saw answered. At its end (or `maxMessages`) a connection starts
 * a new conversation, as a new session, from the next corpus session.
 *
 * Every conversation's system prompt starts with a line naming it, so no two are the same conversation
 * (agents' prompts carry a date, a working directory …) and conversation recognition has real work to do.
 * Bodies are built from JSON pieces serialized once, so the load generator spends little on them.
 */
import { toOpenAIChat } from '../src/adapters/openai-chat.ts';
import type { OpenAIChatMessage } from '../src/adapters/openai-chat-schema.ts';
import { loadCorpusSession } from '../src/testing/corpus.ts';

/** Corpus sessions used, in the order connections take them. */
export const BENCH_SESSIONS = [
  'openhands__multi_swe_bench_ponylang__ponyc-4593.jsonl',
  'swe-agent__ctf_i_got_id_demo.jsonl',
  'pi-mono__before-compaction.jsonl',
  'openhands__multi_swe_bench_ponylang__ponyc-4595.jsonl',
  'swe-agent__replay__marshmallow-code__marshmallow-1867__function_calling_replace_from_source__marshmallow-code__marshmallow-1867.jsonl',
  'swe-agent__ctf_BabyEncryption.jsonl',
] as const;

/** Header naming the reply the upstream gives (`<session>.<step>`); the proxy forwards it untouched. */
export const REPLY_HEADER = 'x-bench-reply';
export const SESSION_HEADER = 'x-ctxkit-session';
/** What the proxy says it sent, and how much less than the client's request that was (tokens). */
export const INPUT_TOKENS_HEADER = 'x-ctxkit-input-tokens';
export const TOKENS_SAVED_HEADER = 'x-ctxkit-tokens-saved';

/** The `x-ctxkit-*` headers of an answer the plan looks at (all absent when the upstream answered). */
export interface AnswerHeaders {
  session?: string | undefined;
  inputTokens?: string | undefined;
  tokensSaved?: string | undefined;
}

/** Picks the answer headers out of `name → value` pairs. */
export function answerHeaders(get: (name: string) => string | undefined): AnswerHeaders {
  return {
    session: get(SESSION_HEADER),
    inputTokens: get(INPUT_TOKENS_HEADER),
    tokensSaved: get(TOKENS_SAVED_HEADER),
  };
}
export const MAX_OUTPUT_TOKENS = 4_096;

export interface BenchSession {
  name: string;
  system: string;
  /** Each history message as JSON with a leading comma (the system message comes first). */
  messages: Buffer[];
  /** Request k sends `messages[0 .. steps[k])`; the reply is `messages[steps[k]]`. */
  steps: number[];
  /** The reply of step k as a Chat Completions `message` (JSON) and its finish reason. */
  replies: { message: string; finishReason: string; outputTokens: number }[];
  /** `,"tools":[…]` built from the tool names the session calls ('' when it calls none). */
  tools: string;
}

export function loadBenchSessions(maxMessages: number): BenchSession[] {
  return BENCH_SESSIONS.map((name) => benchSession(name, maxMessages));
}

function benchSession(name: string, maxMessages: number): BenchSession {
  const transcript = loadCorpusSession(name);
  const all = toOpenAIChat({ system: [], messages: transcript.messages });
  const history = all.slice(0, maxMessages);
  const steps: number[] = [];
  history.forEach((message, index) => {
    if (message.role === 'assistant' && index > 0 && history[index - 1]?.role !== 'assistant')
      steps.push(index);
  });
  const toolNames = new Set<string>();
  for (const message of history) {
    if (message.role !== 'assistant') continue;
    for (const call of message.tool_calls ?? []) toolNames.add(call.function.name);
  }
  const tools = [...toolNames].map((tool) => ({
    type: 'function',
    function: {
      name: tool,
      description: `The agent's ${tool} tool.`,
      parameters: { type: 'object', properties: {}, additionalProperties: true },
    },
  }));
  return {
    name,
    system: transcript.system.join('\n\n') || 'You are a coding agent working in a repository.',
    messages: history.map((message) => Buffer.from(`,${JSON.stringify(message)}`)),
    steps,
    replies: steps.map((index) => replyOf(history[index] as OpenAIChatMessage)),
    tools: tools.length > 0 ? `,"tools":${JSON.stringify(tools)}` : '',
  };
}

function replyOf(message: OpenAIChatMessage): BenchSession['replies'][number] {
  const json = JSON.stringify(message);
  const calls = message.role === 'assistant' && (message.tool_calls?.length ?? 0) > 0;
  return {
    message: json,
    finishReason: calls ? 'tool_calls' : 'stop',
    outputTokens: Math.ceil(json.length / 4),
  };
}

export interface BenchRequest {
  headers: Record<string, string>;
  body: Buffer;
}

interface Connection {
  session: number;
  step: number;
  conversation: number;
  /** The session id the proxy answered with last (conversation recognition's check). */
  lastSession: string | undefined;
  request: BenchRequest;
}

export interface PlanCounters {
  requests: number;
  bodyBytes: number;
  conversations: number;
  /** Answers naming a different session than the conversation's previous answer did. */
  sessionChanges: number;
  /** The same, by corpus session and step (`name#step`). */
  changesAt: Map<string, number>;
  /** Answers that said how many tokens went upstream, their sum, and those that sent fewer than asked. */
  managed: number;
  inputTokens: number;
  trimmed: number;
}

/**
 * What each connection sends next. `mode` 'header' names each conversation's session with
 * `x-ctxkit-session`; 'recognized' sends no header and lets the proxy recognize the conversation.
 */
export class LoadPlan {
  readonly counters: PlanCounters = {
    requests: 0,
    bodyBytes: 0,
    conversations: 0,
    sessionChanges: 0,
    changesAt: new Map(),
    managed: 0,
    inputTokens: 0,
    trimmed: 0,
  };
  readonly #sessions: readonly BenchSession[];
  readonly #connections: Connection[] = [];
  readonly #mode: 'header' | 'recognized';
  readonly #runTag: string;
  readonly #model: string;
  #started = 0;

  constructor(
    sessions: readonly BenchSession[],
    options: { connections: number; mode: 'header' | 'recognized'; runTag: string; model: string },
  ) {
    this.#sessions = sessions;
    this.#mode = options.mode;
    this.#runTag = options.runTag;
    this.#model = options.model;
    for (let index = 0; index < options.connections; index++) {
      const connection: Connection = {
        session: index % sessions.length,
        step: 0,
        conversation: this.#started++,
        lastSession: undefined,
        request: { headers: {}, body: Buffer.alloc(0) },
      };
      this.counters.conversations++;
      connection.request = this.#build(connection);
      this.#connections.push(connection);
    }
  }

  /**
   * A new phase: a request the last load left unanswered is sent again (the proxy may have answered it,
   * so a recognized conversation may continue as a fork), so sessions are compared within a phase only.
   */
  newPhase(): void {
    for (const connection of this.#connections) connection.lastSession = undefined;
  }

  /** The request connection `index` sends now. */
  request(index: number): BenchRequest {
    return this.#at(index).request;
  }

  /**
   * After connection `index` got its answer: the conversation grows by the reply and what followed it,
   * or a new one starts. `answer`: the answer's `x-ctxkit-*` headers.
   */
  advance(index: number, answer: AnswerHeaders): void {
    const answeredSession = answer.session;
    if (answer.inputTokens !== undefined) {
      this.counters.managed++;
      this.counters.inputTokens += Number(answer.inputTokens) || 0;
      if ((Number(answer.tokensSaved) || 0) > 0) this.counters.trimmed++;
    }
    const connection = this.#at(index);
    this.counters.requests++;
    this.counters.bodyBytes += connection.request.body.length;
    const changed =
      answeredSession !== undefined &&
      connection.lastSession !== undefined &&
      connection.lastSession !== answeredSession;
    if (changed) this.counters.sessionChanges++;
    if (answeredSession !== undefined) connection.lastSession = answeredSession;
    const session = this.#sessions[connection.session] as BenchSession;
    if (changed) {
      const at = `${session.name.split('__')[0]}#${connection.step}`;
      this.counters.changesAt.set(at, (this.counters.changesAt.get(at) ?? 0) + 1);
    }
    connection.step++;
    if (connection.step >= session.steps.length) {
      connection.session = (connection.session + 1) % this.#sessions.length;
      connection.step = 0;
      connection.conversation = this.#started++;
      connection.lastSession = undefined;
      this.counters.conversations++;
    }
    connection.request = this.#build(connection);
  }

  #at(index: number): Connection {
    const connection = this.#connections[index];
    if (!connection) throw new Error(`no connection ${index}`);
    return connection;
  }

  #build(connection: Connection): BenchRequest {
    const session = this.#sessions[connection.session] as BenchSession;
    const end = session.steps[connection.step] as number;
    const name = `bench-${this.#runTag}-${connection.conversation}`;
    const system = JSON.stringify({ role: 'system', content: `Conversation ${name}.\n\n${session.system}` });
    const head = Buffer.from(`{"model":${JSON.stringify(this.#model)},"messages":[${system}`);
    const tail = Buffer.from(`]${session.tools},"max_tokens":${MAX_OUTPUT_TOKENS}}`);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      authorization: 'Bearer sk-bench',
      [REPLY_HEADER]: `${connection.session}.${connection.step}`,
    };
    if (this.#mode === 'header') headers[SESSION_HEADER] = name;
    return { headers, body: Buffer.concat([head, ...session.messages.slice(0, end), tail]) };
  }
}
