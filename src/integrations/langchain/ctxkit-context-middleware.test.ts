/**
 * The middleware inside real `createAgent` runs: LangChain's agent graph, tool node and checkpointer, over
 * LangChain's own fake chat model (`fakeModel`), which records what it received and answers from a script.
 */
import { ContextOverflowError } from '@langchain/core/errors';
import { MemorySaver } from '@langchain/langgraph';
import {
  AIMessage,
  type BaseMessage,
  createAgent,
  fakeModel,
  HumanMessage,
  ToolMessage,
  tool,
} from 'langchain';
import { BadRequestError, RateLimitError } from 'openai';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { ContextEvent } from '../../core/events.ts';
import { PRESETS } from '../../core/policy/presets/index.ts';
import { createExactCounter } from '../../core/tokens/exact-counter.ts';
import { createContextManager } from '../../engine/context-manager.ts';
import type { PrepareResult } from '../../engine/prepare-call.ts';
import { createMemorySkillSource } from '../../store/memory-skill-source.ts';
import { ctxkitContextMiddleware } from './ctxkit-context-middleware.ts';
import { fromLangChainMessages, usageFromLangChain } from './langchain-messages.ts';
import { ctxkitReadOffloadedTool } from './read-offloaded-langchain-tool.ts';
import { DERIVED_SESSION_PREFIX } from './session-id.ts';

/** A source file of about 1,000 tokens, different for every path. */
const fileText = (path: string): string =>
  [
    `// ${path}`,
    ...Array.from(
      { length: 60 },
      (_, line) => `export const v${line} = ${line * 7}; // ${path} line ${line}: ${'x'.repeat(line % 9)}`,
    ),
  ].join('\n');

const readFile = tool(async ({ path }: { path: string }) => fileText(path), {
  name: 'read_file',
  description: 'Read a file of the repository',
  schema: z.object({ path: z.string() }),
});

const o200k = createExactCounter('o200k');
/** An independent count of what a model call received: every text, every call's arguments, 4 per message. */
const receivedTokens = (messages: readonly BaseMessage[]): number =>
  messages.reduce((sum, message) => {
    const calls = AIMessage.isInstance(message) ? JSON.stringify(message.tool_calls ?? []) : '';
    return sum + o200k.count(message.text) + o200k.count(calls) + 4;
  }, 0);

/** A reply as a provider sends it: text, tool calls, and usage counted on what the model received. */
const reply =
  (text: string, calls: { name: string; args: Record<string, unknown>; id: string }[] = []) =>
  (messages: BaseMessage[]) =>
    new AIMessage({
      content: text,
      tool_calls: calls.map((call) => ({ ...call, type: 'tool_call' as const })),
      usage_metadata: {
        input_tokens: receivedTokens(messages) + 600,
        output_tokens: 12,
        total_tokens: receivedTokens(messages) + 612,
        input_token_details: { cache_read: 100 },
      },
      response_metadata: { model_name: 'gpt-4o' },
    });

const openAIOverflow = () =>
  new BadRequestError(
    400,
    {
      message:
        "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens. Please reduce the length of the messages.",
      type: 'invalid_request_error',
      param: 'messages',
      code: 'context_length_exceeded',
    },
    undefined,
    new Headers(),
  );

const openAIRateLimit = () =>
  new RateLimitError(
    429,
    {
      message:
        'Rate limit reached for gpt-4o on tokens per min (TPM): Limit 30000, Used 29000, Requested 4000.',
      type: 'tokens',
      param: null,
      code: 'rate_limit_exceeded',
    },
    undefined,
    new Headers(),
  );

const shape = (messages: readonly { role: string; parts: unknown[] }[]) =>
  messages.map(({ role, parts }) => ({ role, parts }));

const thread = (id: string) => ({ configurable: { thread_id: id }, recursionLimit: 100 });

function setup(options: { contextWindow: number; maxOutputTokens: number; model?: string }) {
  const manager = createContextManager({
    policy: { ...PRESETS.default, ...(options.model !== undefined && { model: options.model }) },
    contextWindow: options.contextWindow,
    maxOutputTokens: options.maxOutputTokens,
  });
  const events: ContextEvent[] = [];
  manager.on((event) => events.push(event));
  const prepared: PrepareResult[] = [];
  const middleware = ctxkitContextMiddleware({ manager, onPrepare: (result) => prepared.push(result) });
  const model = fakeModel();
  const agent = createAgent({
    model,
    tools: [readFile],
    systemPrompt: 'You are a coding agent. Be brief.',
    middleware: [middleware],
    checkpointer: new MemorySaver(),
  });
  return { manager, events, prepared, model, agent };
}

const CALLS = 8;
const WINDOW = 8_000;
const OUTPUT = 500;

describe('ctxkitContextMiddleware in a createAgent run with tools', () => {
  it("sends the model ctxkit's view: within a tiny window, old large results behind pointers", async () => {
    const { manager, prepared, model, agent } = setup({
      contextWindow: WINDOW,
      maxOutputTokens: OUTPUT,
      model: 'gpt-4o',
    });
    for (let index = 0; index < CALLS; index++)
      model.respond(
        reply(`reading f${index}`, [{ name: 'read_file', args: { path: `f${index}.ts` }, id: `c${index}` }]),
      );
    model.respond(reply('All files read.'));

    const state = await agent.invoke({ messages: [new HumanMessage('Read f0.ts to f7.ts')] }, thread('view'));

    expect(model.callCount).toBe(CALLS + 1);
    expect(prepared).toHaveLength(CALLS + 1);
    // Without ctxkit the history would not fit: the test means something.
    expect(receivedTokens(state.messages)).toBeGreaterThan(WINDOW);
    model.calls.forEach((call, index) => {
      const view = prepared[index] as PrepareResult;
      const [system, ...messages] = call.messages;
      // Exactly the prepared request, message for message, and the system prompt as prepared.
      expect(system?.type).toBe('system');
      expect(system?.text).toBe(view.system);
      expect(shape(fromLangChainMessages(messages))).toEqual(shape(view.messages));
      // Never past the window: ctxkit's count and an independent one.
      expect(view.stats.tokens.input).toBeLessThanOrEqual(WINDOW - OUTPUT);
      expect(receivedTokens(call.messages)).toBeLessThan(WINDOW - OUTPUT);
    });
    // The oldest results reach the model behind pointers the read-back tool can follow (offloaded one by
    // one, or summarized with the transcript offloaded); the newest verbatim.
    const last = (model.calls.at(-1)?.messages ?? []).filter((message) => ToolMessage.isInstance(message));
    expect(last.some((message) => message.text === fileText('f0.ts'))).toBe(false);
    expect(last.at(-1)?.text).toBe(fileText('f7.ts'));
    const pointers = prepared.at(-1)?.pointers ?? [];
    expect(pointers.length).toBeGreaterThan(0);
    // The graph state keeps every result whole: ctxkit's view is computed per call, nothing is rewritten.
    const results = state.messages.filter((message) => ToolMessage.isInstance(message));
    expect(results.map((message) => message.text)).toEqual(
      Array.from({ length: CALLS }, (_, index) => fileText(`f${index}.ts`)),
    );
    // A pointer leads back to the oldest result, whole.
    const offloaded = await Promise.all(
      pointers.map((pointer) => manager.readOffloaded('view', pointer.ref)),
    );
    expect(offloaded.some((text) => text.includes(fileText('f0.ts')))).toBe(true);
  });

  it('sends an assistant message whose long arguments ctxkit offloaded as the original, with the new arguments', async () => {
    const manager = createContextManager({
      policy: { ...PRESETS.default, model: 'gpt-4o' },
      contextWindow: WINDOW,
      maxOutputTokens: OUTPUT,
    });
    const writeFile = tool(async ({ path }: { path: string; content: string }) => `wrote ${path}`, {
      name: 'write_file',
      description: 'Write a file',
      schema: z.object({ path: z.string(), content: z.string() }),
    });
    const body = (index: number) =>
      Array.from({ length: 40 }, (_, line) => `const v${index}_${line} = compute(${line}, "${index}");`).join(
        '\n',
      );
    const model = fakeModel();
    for (let index = 0; index < 10; index++)
      model.respond(
        new AIMessage({
          content: [{ type: 'text', text: `writing f${index}` }],
          tool_calls: [
            {
              id: `w${index}`,
              name: 'write_file',
              args: { path: `f${index}.ts`, content: body(index) },
              type: 'tool_call',
            },
          ],
          response_metadata: { model_name: 'gpt-4o', system_fingerprint: `fp_${index}` },
        }),
      );
    model.respond(new AIMessage('Done.'));
    const agent = createAgent({
      model,
      tools: [writeFile],
      middleware: [ctxkitContextMiddleware({ manager })],
    });
    const state = await agent.invoke(
      { messages: [new HumanMessage('Write f0.ts to f9.ts')] },
      thread('args'),
    );

    const sent = (model.calls.at(-1)?.messages ?? []).filter((message) =>
      AIMessage.isInstance(message),
    ) as AIMessage[];
    const first = sent[0];
    expect(String(first?.tool_calls?.[0]?.args.content)).toMatch(
      /^\[offloaded \d+ chars · read_offloaded\("/,
    );
    expect(first?.tool_calls?.[0]?.args.path).toBe('f0.ts');
    // Everything else of the message is the model's own: content blocks, metadata, id.
    const original = state.messages.find((message: BaseMessage) => message.id === first?.id) as AIMessage;
    expect(first?.content).toEqual(original.content);
    expect(first?.response_metadata).toEqual({ model_name: 'gpt-4o', system_fingerprint: 'fp_0' });
    expect(original.tool_calls?.[0]?.args.content).toBe(body(0));
    expect(sent.at(-1)?.tool_calls?.[0]?.args.content).toBe(body(9));
  });

  it('holds each message exactly once in the state and in the log, across steps and invocations', async () => {
    const { manager, events, model, agent } = setup({
      contextWindow: WINDOW,
      maxOutputTokens: OUTPUT,
      model: 'gpt-4o',
    });
    model.respond(reply('reading', [{ name: 'read_file', args: { path: 'a.ts' }, id: 'c1' }]));
    model.respond(reply('reading more', [{ name: 'read_file', args: { path: 'b.ts' }, id: 'c2' }]));
    model.respond(reply('Done.'));
    model.respond(reply('Again', [{ name: 'read_file', args: { path: 'a.ts' }, id: 'c3' }]));
    model.respond(reply('Done again.'));

    await agent.invoke({ messages: [new HumanMessage('Read a.ts and b.ts')] }, thread('once'));
    const state = await agent.invoke({ messages: [new HumanMessage('Read a.ts again')] }, thread('once'));

    const ids = state.messages.map((message: BaseMessage) => message.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(state.messages.map((message: BaseMessage) => message.type)).toEqual([
      'human',
      'ai',
      'tool',
      'ai',
      'tool',
      'ai',
      'human',
      'ai',
      'tool',
      'ai',
    ]);
    const { log } = await manager.history('once');
    expect(shape(log)).toEqual(shape(fromLangChainMessages(state.messages)));
    // Every sync found the log a prefix of the agent's history: nothing was re-appended or branched.
    expect(events.filter((event) => event.type === 'history-diverged')).toEqual([]);
  });

  it('runs afterTurn after every model call, and finds the turn ended only at the reply that calls no tool', async () => {
    const { manager, model, agent } = setup({
      contextWindow: WINDOW,
      maxOutputTokens: OUTPUT,
      model: 'gpt-4o',
    });
    const afterTurn = vi.spyOn(manager, 'afterTurn');
    model.respond(reply('reading', [{ name: 'read_file', args: { path: 'a.ts' }, id: 'c1' }]));
    model.respond(reply('reading more', [{ name: 'read_file', args: { path: 'b.ts' }, id: 'c2' }]));
    model.respond(reply('Done.'));
    await agent.invoke({ messages: [new HumanMessage('Read a.ts and b.ts')] }, thread('turns'));
    const results = await Promise.all(afterTurn.mock.results.map((result) => result.value));
    expect(results.map((result) => result.turnEnded)).toEqual([false, false, true]);
  });

  it("records every reply's usage_metadata in the session, where it anchors the next estimate", async () => {
    const { manager, events, prepared, model, agent } = setup({
      contextWindow: 100_000,
      maxOutputTokens: 1_000,
    });
    const reported = {
      input_tokens: 5_000,
      output_tokens: 40,
      total_tokens: 5_040,
      input_token_details: { cache_read: 4_096, cache_creation: 128 },
      output_token_details: { reasoning: 16 },
    };
    model.respond(new AIMessage({ content: 'First answer.', usage_metadata: reported }));
    model.respond(new AIMessage({ content: 'Second answer.' }));

    await agent.invoke({ messages: [new HumanMessage('A short question.')] }, thread('usage'));
    await agent.invoke({ messages: [new HumanMessage('Another one.')] }, thread('usage'));

    const { log } = await manager.history('usage');
    expect(log.filter((message) => message.usage).map((message) => message.usage)).toEqual([
      {
        inputTokens: 5_000,
        outputTokens: 40,
        cacheReadTokens: 4_096,
        cacheWriteTokens: 128,
        reasoningTokens: 16,
      },
    ]);
    expect(usageFromLangChain(reported)).toEqual(log[1]?.usage);
    expect(events.filter((event) => event.type === 'model-usage')).toHaveLength(1);
    // Our own count of the first request was a few hundred tokens; the provider said 5,000: the next
    // request is estimated from what the provider said.
    const [first, second] = prepared;
    expect(first?.stats.tokens.input).toBeLessThan(1_000);
    expect(second?.stats.tokens.input).toBeGreaterThan(5_000);
  });
});

describe('overflow and other model errors', () => {
  async function twoTurns() {
    const run = setup({ contextWindow: 32_000, maxOutputTokens: 1_000 });
    run.model.respond(new AIMessage('One.'));
    run.model.respond(new AIMessage('Two.'));
    await run.agent.invoke({ messages: [new HumanMessage(`First ${'words '.repeat(200)}`)] }, thread('o'));
    await run.agent.invoke({ messages: [new HumanMessage(`Second ${'words '.repeat(200)}`)] }, thread('o'));
    return run;
  }

  it("recovers from OpenAI's 400 context_length_exceeded and retries once, with a smaller request", async () => {
    const { manager, events, model, agent } = await twoTurns();
    model.respond(openAIOverflow());
    model.respond(new AIMessage('Three.'));

    const state = await agent.invoke({ messages: [new HumanMessage('Third')] }, thread('o'));

    expect(state.messages.at(-1)?.text).toBe('Three.');
    expect(model.callCount).toBe(4);
    const [failed, retried] = model.calls.slice(2);
    expect(retried?.messages.length).toBeLessThan(failed?.messages.length ?? 0);
    expect(retried?.messages.at(-1)?.text).toBe('Third');
    expect(events.filter((event) => event.type === 'context-overflowed')).toMatchObject([{ retry: true }]);
    // The session's record still holds the whole conversation, once.
    expect((await manager.history('o')).log).toHaveLength(state.messages.length);
  });

  it("recovers from LangChain's ContextOverflowError, whatever its wording", async () => {
    const { events, model, agent } = await twoTurns();
    model.respond(new ContextOverflowError('Input exceeds what this deployment accepts.'));
    model.respond(new AIMessage('Three.'));
    const state = await agent.invoke({ messages: [new HumanMessage('Third')] }, thread('o'));
    expect(state.messages.at(-1)?.text).toBe('Three.');
    expect(model.callCount).toBe(4);
    expect(events.filter((event) => event.type === 'context-overflowed')).toMatchObject([{ retry: true }]);
  });

  it('follows the policy at each overflow in a row (the window it names, drop to fit, reset), until nothing smaller can be sent', async () => {
    const { events, model, agent } = await twoTurns();
    const third = openAIOverflow();
    model.respond(openAIOverflow());
    model.respond(openAIOverflow());
    model.respond(third);
    model.respond(new AIMessage('never sent'));
    const error = await agent
      .invoke({ messages: [new HumanMessage('Third')] }, thread('o'))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    // gpt-4o's profile window, until the error names 8,192: adopted. Then default's drop to fit and
    // retry (maxRetries 1), then the reset to the last turn; what is left after it is what overflowed,
    // so nothing smaller can be sent and the provider's error stands.
    expect(causes(error)).toContain(third);
    expect(model.callCount).toBe(5);
    const overflowed = events.flatMap((event) =>
      event.type === 'context-overflowed' ? [[event.attempt, event.adoptedWindow]] : [],
    );
    expect(overflowed).toEqual([
      [1, 8_192],
      [2, undefined],
      [3, undefined],
    ]);
  });

  it('does not retry a rate limit, nor take it for an overflow', async () => {
    const { events, model, agent } = await twoTurns();
    const limited = openAIRateLimit();
    model.respond(limited);
    model.respond(new AIMessage('never sent'));
    const error = await agent
      .invoke({ messages: [new HumanMessage('Third')] }, thread('o'))
      .catch((e: unknown) => e);
    expect(causes(error)).toContain(limited);
    expect(model.callCount).toBe(3);
    expect(events.filter((event) => event.type === 'context-overflowed')).toEqual([]);
  });
});

/** The error and what it wraps (LangChain wraps a middleware's error in a MiddlewareError). */
function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current = error;
  while (current !== undefined && chain.length < 5) {
    chain.push(current);
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}

describe('reading offloaded content back', () => {
  it('the read_offloaded tool the middleware brings reads its session, and another session reads none of it', async () => {
    const { model, agent, manager } = setup({
      contextWindow: WINDOW,
      maxOutputTokens: OUTPUT,
      model: 'gpt-4o',
    });
    for (let index = 0; index < CALLS; index++)
      model.respond(
        reply(`reading f${index}`, [{ name: 'read_file', args: { path: `f${index}.ts` }, id: `c${index}` }]),
      );
    let ref = '';
    // The model follows the first pointer it was given: an offloaded result, or a summary's transcript.
    model.respond((messages) => {
      const text = messages.map((message) => message.text).join('\n');
      ref = /\b(?:large_tool_results|conversation_history)\/[\w.-]+/.exec(text)?.[0] ?? '';
      return reply('checking f0', [{ name: 'read_offloaded', args: { ref, search: 'line 42:' }, id: 'r1' }])(
        messages,
      );
    });
    model.respond(reply('Found it.'));

    const state = await agent.invoke(
      { messages: [new HumanMessage('Read the files, then look at f0 line 42')] },
      thread('a'),
    );

    expect(ref).toMatch(/^(large_tool_results|conversation_history)\//);
    const answer = state.messages.find(
      (message: BaseMessage) => ToolMessage.isInstance(message) && message.tool_call_id === 'r1',
    );
    expect(answer?.text).toContain('f0.ts line 42:');
    expect((answer as ToolMessage | undefined)?.status).not.toBe('error');

    // The same tool, bound to another session, finds nothing under that ref; bound to this one, the content.
    const elsewhere = ctxkitReadOffloadedTool({ manager, sessionId: 'b' });
    expect(String(await elsewhere.invoke({ ref }))).toMatch(/no offloaded content/);
    const here = ctxkitReadOffloadedTool({ manager, sessionId: 'a' });
    expect(String(await here.invoke({ ref }))).toContain('f0.ts line 59:');
  });

  it('answers a bad ref as an error tool message the model can act on', async () => {
    const { model, agent } = setup({ contextWindow: 32_000, maxOutputTokens: 1_000 });
    model.respond(
      new AIMessage({
        content: '',
        tool_calls: [
          { id: 'r1', name: 'read_offloaded', args: { ref: 'large_tool_results/none' }, type: 'tool_call' },
        ],
      }),
    );
    model.respond(new AIMessage('ok'));
    const state = await agent.invoke({ messages: [new HumanMessage('read it')] }, thread('bad'));
    const answer = state.messages.find((message: BaseMessage) =>
      ToolMessage.isInstance(message),
    ) as ToolMessage;
    expect(answer.status).toBe('error');
    expect(answer.text).toMatch(/no offloaded content/);
  });
});

describe('sessions, system prompt and options', () => {
  it("uses the run's thread_id, else one session per conversation, as the read tool does", async () => {
    const manager = createContextManager({ policy: PRESETS.default, contextWindow: 32_000 });
    const model = fakeModel()
      .respond(new AIMessage('a'))
      .respond(new AIMessage('b'))
      .respond(new AIMessage('c'));
    const agent = createAgent({ model, tools: [], middleware: [ctxkitContextMiddleware({ manager })] });
    await agent.invoke({ messages: [new HumanMessage('first conversation')] });
    await agent.invoke({ messages: [new HumanMessage('second conversation')] });
    await agent.invoke(
      { messages: [new HumanMessage('in a thread')] },
      { configurable: { thread_id: 'thread-7' } },
    );
    const sessions = (await manager.store.list()).map((session) => session.id).sort();
    expect(sessions).toHaveLength(3);
    expect(sessions).toContain('thread-7');
    expect(sessions.filter((id) => id.startsWith(DERIVED_SESSION_PREFIX))).toHaveLength(2);
  });

  it("appends ctxkit's indexes to the agent's system message, which stays a byte-stable prefix", async () => {
    const skills = createMemorySkillSource({
      'pdf-forms': {
        'SKILL.md': '---\nname: pdf-forms\ndescription: Fill in PDF forms.\n---\n# PDF forms\n',
      },
    });
    const manager = createContextManager({ policy: PRESETS.default, contextWindow: 32_000, skills });
    const model = fakeModel().respond(new AIMessage('ok'));
    const agent = createAgent({
      model,
      tools: [],
      systemPrompt: 'You fill forms.',
      middleware: [ctxkitContextMiddleware({ manager, sessionId: 'forms' })],
    });
    await agent.invoke({ messages: [new HumanMessage('help')] });
    const system = model.calls[0]?.messages[0];
    expect(system?.type).toBe('system');
    expect(system?.text.startsWith('You fill forms.')).toBe(true);
    expect(system?.text).toContain('pdf-forms');
  });

  it("puts a summary the policy places in a system message into the agent's system message (digitorn)", async () => {
    const manager = createContextManager({
      policy: PRESETS.digitorn,
      contextWindow: 32_000,
      maxOutputTokens: 1_000,
    });
    const model = fakeModel();
    for (let index = 0; index < 4; index++) model.respond(new AIMessage(`answer ${index}`));
    const agent = createAgent({
      model,
      tools: [],
      systemPrompt: 'You answer questions.',
      middleware: [ctxkitContextMiddleware({ manager })],
      checkpointer: new MemorySaver(),
    });
    for (let index = 0; index < 3; index++)
      await agent.invoke(
        { messages: [new HumanMessage(`question ${index}: ${'why '.repeat(40)}`)] },
        thread('dig'),
      );
    expect((await manager.compact('dig')).compacted).toBe(true);
    await agent.invoke({ messages: [new HumanMessage('question 3')] }, thread('dig'));

    const [system, ...rest] = model.calls.at(-1)?.messages ?? [];
    expect(system?.type).toBe('system');
    expect(system?.text.startsWith('You answer questions.\n\n')).toBe(true);
    expect(system?.text).toContain('question 0');
    expect(rest.map((message) => message.type)).not.toContain('system');
    expect(rest.at(-1)?.text).toBe('question 3');
  });

  it('refuses manager settings beside a manager passed in', () => {
    const manager = createContextManager({ policy: PRESETS.default, contextWindow: 32_000 });
    expect(() => ctxkitContextMiddleware({ manager, trigger: { fraction: 0.5 } })).toThrow(/trigger/);
    expect(() => ctxkitContextMiddleware({ manager, model: fakeModel() })).toThrow(/model/);
  });

  it("summarizes with summarizationMiddleware's options: its model writes the summary, its prefix leads it", async () => {
    const summaryModel = fakeModel();
    for (let index = 0; index < 4; index++)
      summaryModel.respond(
        new AIMessage(
          `## Intent\n- answer the numbered questions (summary ${index})\n## Next steps\n- keep going`,
        ),
      );
    const model = fakeModel();
    for (let index = 0; index < 8; index++) model.respond(new AIMessage(`answer ${index}`));
    const middleware = ctxkitContextMiddleware({
      model: summaryModel,
      trigger: { messages: 6 },
      keep: { messages: 2 },
      summaryPrefix: 'Here is a summary of the conversation to date:',
      contextWindow: 100_000,
    });
    const agent = createAgent({
      model,
      tools: [],
      middleware: [middleware],
      checkpointer: new MemorySaver(),
    });
    for (let index = 0; index < 8; index++)
      await agent.invoke({ messages: [new HumanMessage(`question ${index}`)] }, thread('sum'));

    expect(summaryModel.callCount).toBeGreaterThan(0);
    expect(summaryModel.calls[0]?.messages.at(-1)?.text).toContain('question 0');
    const last = model.calls.at(-1)?.messages ?? [];
    expect(last[0]?.text).toMatch(/^Here is a summary of the conversation to date:/);
    expect(last[0]?.text).toContain('answer the numbered questions');
    expect(last.some((message) => message.text === 'question 0')).toBe(false);
    // The state and the session log still hold all 16 messages.
    const { log } = await middleware.manager.history('sum');
    expect(log).toHaveLength(16);
  });
});
