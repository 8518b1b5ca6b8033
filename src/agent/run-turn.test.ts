import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Message } from '../core/message.ts';
import { PRESETS } from '../core/policy/presets/index.ts';
import { createExactCounter } from '../core/tokens/exact-counter.ts';
import { type ContextManager, createContextManager } from '../engine/context-manager.ts';
import { createAnthropicClient } from '../providers/anthropic-client.ts';
import type { ModelClient } from '../providers/model-client.ts';
import { createOpenAICompatibleClient } from '../providers/openai-compatible-client.ts';
import { type FakeProviderServer, startFakeProviderServer } from '../testing/fake-provider-server.ts';
import { anthropicReply, openAIReply } from '../testing/fake-provider-server-replies.ts';
import { type CodingTurn, scriptedCodingModel } from '../testing/scripted-coding-model.ts';
import type { AgentEvent } from './agent-events.ts';
import type { AgentTool } from './agent-tool.ts';
import { runTurn } from './run-turn.ts';
import { createSubagentTool } from './subagent-tool.ts';

const counter = createExactCounter('o200k');

/** A tool that returns `lines` numbered lines naming `path`: the large outputs agents live on. */
const readTool: AgentTool = {
  definition: {
    name: 'read_file',
    description: 'Read a file.',
    parameters: { type: 'object', properties: { path: { type: 'string' }, lines: { type: 'integer' } } },
  },
  async run(args) {
    const { path, lines = 20 } = args as { path: string; lines?: number };
    return {
      content: Array.from(
        { length: lines },
        (_, index) => `${path}:${index + 1}: const value${index} = compute(${index});`,
      ).join('\n'),
      isError: false,
    };
  },
};

let server: FakeProviderServer;
beforeEach(async () => {
  server = await startFakeProviderServer();
});
afterEach(async () => {
  await server.close();
});

function clients(): Record<'openai' | 'anthropic', ModelClient> {
  return {
    openai: createOpenAICompatibleClient({ baseUrl: server.openAIBaseUrl, apiKey: 'sk-test', maxRetries: 0 }),
    anthropic: createAnthropicClient({
      baseUrl: server.anthropicBaseUrl,
      apiKey: 'sk-ant-test',
      maxRetries: 0,
    }),
  };
}

function setup(turns: CodingTurn[], window = 8_000, policy = PRESETS.default) {
  const model = scriptedCodingModel({ turns, window, counter });
  server.setFallback(model.reply);
  const manager = createContextManager({
    policy,
    contextWindow: window,
    maxOutputTokens: 1_000,
    counter,
  });
  return { model, manager };
}

/** The agent's settings over OpenAI with the read tool, and the events it emits. */
function recordingConfig(manager: ContextManager) {
  const events: AgentEvent[] = [];
  const config = {
    manager,
    client: clients().openai,
    model: 'gpt-4o',
    tools: [readTool],
    onEvent: (event: AgentEvent) => events.push(event),
  };
  return { config, events };
}

const textOf = (message: Message) =>
  message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');

describe('the agent loop', () => {
  for (const provider of ['openai', 'anthropic'] as const) {
    it(`${provider}: calls tools, appends every result, answers, and records usage`, async () => {
      const { model, manager } = setup([
        {
          steps: [
            [
              { name: 'read_file', args: { path: 'src/a.ts' } },
              { name: 'read_file', args: { path: 'src/b.ts' } },
            ],
          ],
          answer: 'Both files define values.',
        },
      ]);
      const events: AgentEvent[] = [];
      const result = await runTurn(
        {
          manager,
          client: clients()[provider],
          model: 'gpt-4o',
          tools: [readTool],
          onEvent: (event) => events.push(event),
        },
        's1',
        '[turn 0] what is in src/a.ts and src/b.ts?',
      );
      expect(result).toMatchObject({ stopReason: 'answered', steps: 2, text: 'Both files define values.' });
      expect(model.figures.requests).toBe(2);
      const { log } = await manager.history('s1');
      expect(log.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant']);
      expect(log.at(-1)?.usage?.inputTokens).toBe(model.figures.inputs[1]);
      expect(
        events
          .filter((event) => event.type === 'tool-call')
          .map((event) => event.type === 'tool-call' && event.name),
      ).toEqual(['read_file', 'read_file']);
      expect(events.some((event) => event.type === 'text-delta')).toBe(true);
      expect(result.usage.inputTokens).toBe((model.figures.inputs[0] ?? 0) + (model.figures.inputs[1] ?? 0));
    });
  }

  it('ends the turn at maxSteps with a step-limit reason, every call answered', async () => {
    const steps = Array.from({ length: 10 }, (_, index) => [
      { name: 'read_file', args: { path: `src/f${index}.ts` } },
    ]);
    const { model, manager } = setup([{ steps, answer: 'done' }]);
    const result = await runTurn(
      { manager, client: clients().openai, model: 'gpt-4o', tools: [readTool], maxSteps: 3 },
      's1',
      '[turn 0] read them all',
    );
    expect(result).toMatchObject({ stopReason: 'step_limit', steps: 3 });
    expect(model.figures.requests).toBe(3);
    const { log } = await manager.history('s1');
    const calls = log.flatMap((message) => message.parts).filter((part) => part.type === 'tool-call');
    const results = log.flatMap((message) => message.parts).filter((part) => part.type === 'tool-result');
    expect(calls).toHaveLength(3);
    expect(results.map((part) => part.type === 'tool-result' && part.callId)).toEqual(
      calls.map((part) => part.type === 'tool-call' && part.callId),
    );
  });

  it('recovers a reported overflow and sends the call again; when nothing smaller can be sent, the overflow fails the turn', async () => {
    const { model, manager } = setup([
      { steps: [[{ name: 'read_file', args: { path: 'src/big.ts', lines: 150 } }]], answer: 'read' },
      { steps: [], answer: 'fine' },
      { steps: [], answer: 'never' },
    ]);
    const { config, events } = recordingConfig(manager);
    await runTurn(config, 's1', '[turn 0] read src/big.ts');
    const before = model.figures.requests;
    model.forceOverflow(1);
    const result = await runTurn(config, 's1', '[turn 1] hello');
    expect(result).toMatchObject({ stopReason: 'answered', text: 'fine' });
    expect(events.filter((event) => event.type === 'overflow-recovered')).toHaveLength(1);
    expect(model.figures.requests - before).toBe(2);
    expect(model.figures.forcedOverflows).toBe(1);
    // The retry sent less than the request that overflowed.
    const [overflowed, retried] = server.requests.slice(-2).map((request) => request.rawBody.length);
    expect(retried).toBeLessThan(overflowed ?? 0);
    model.forceOverflow(2);
    await expect(runTurn(config, 's1', '[turn 2] again')).rejects.toThrow(/maximum context length/);
    expect(model.figures.requests - before).toBeLessThanOrEqual(4);
  });

  it('cowagent: overflows in a row follow its emergency path to its last resort, the whole context cleared', async () => {
    const { model, manager } = setup(
      [
        { steps: [[{ name: 'read_file', args: { path: 'src/big.ts', lines: 300 } }]], answer: 'read' },
        { steps: [], answer: 'never' },
        { steps: [], answer: 'fresh' },
      ],
      8_000,
      PRESETS.cowagent,
    );
    const { config, events } = recordingConfig(manager);
    await runTurn(config, 's1', '[turn 0] read src/big.ts');
    model.forceOverflow(2);
    const before = model.figures.requests;
    await expect(runTurn(config, 's1', '[turn 1] hello')).rejects.toThrow(/maximum context length/);
    // Summarized to memory and trimmed, sent again; then cleared, and not sent again.
    expect(model.figures.requests - before).toBe(2);
    const overflowed = events.flatMap((event) =>
      event.type === 'context' && event.event.type === 'context-overflowed' ? [event.event.retry] : [],
    );
    expect(overflowed).toEqual([true, false]);
    await runTurn(config, 's1', '[turn 2] start over');
    const sent = server.requests.at(-1)?.body as { messages: { role: string }[] };
    expect(sent.messages.map((message) => message.role).filter((role) => role !== 'system')).toEqual([
      'user',
    ]);
  });

  it("fails with the provider's overflow when ctxkit cannot make the retry smaller", async () => {
    const { model, manager } = setup([{ steps: [], answer: 'never' }]);
    const config = { manager, client: clients().openai, model: 'gpt-4o', tools: [readTool] };
    model.forceOverflow(1);
    // One short message: nothing to cut, so no retry smaller than what overflowed exists.
    const failed = await runTurn(config, 's-small', 'hello').catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(Error);
    expect((failed as Error).message).toMatch(/maximum context length/);
    expect(model.figures.requests).toBe(1);
  });

  it('answers an unknown tool and unparsable arguments with an error result and carries on', async () => {
    const { manager } = setup([{ steps: [[{ name: 'no_such_tool', args: {} }]], answer: 'recovered' }]);
    const result = await runTurn(
      { manager, client: clients().openai, model: 'gpt-4o', tools: [readTool] },
      's1',
      '[turn 0] try',
    );
    expect(result.stopReason).toBe('answered');
    const { log } = await manager.history('s1');
    const toolResult = log.flatMap((message) => message.parts).find((part) => part.type === 'tool-result');
    expect(toolResult).toMatchObject({
      isError: true,
      content: expect.stringMatching(/Unknown tool "no_such_tool"/),
    });
  });

  it('never sends a request over a small window across many turns of large tool output', async () => {
    const turns: CodingTurn[] = Array.from({ length: 12 }, (_, turn) => ({
      steps: [[{ name: 'read_file', args: { path: `src/module${turn}.ts`, lines: 120 } }]],
      answer: `module${turn} read`,
    }));
    const { model, manager } = setup(turns, 6_000);
    for (let turn = 0; turn < turns.length; turn++) {
      const result = await runTurn(
        { manager, client: clients().openai, model: 'gpt-4o', tools: [readTool] },
        's1',
        `[turn ${turn}] read src/module${turn}.ts`,
      );
      expect(result.stopReason).toBe('answered');
    }
    expect(model.figures.overWindow).toBe(0);
    expect(model.figures.maxInputTokens).toBeLessThanOrEqual(6_000 - 1_000);
    expect(model.figures.requests).toBeGreaterThanOrEqual(24);
  });

  it('a cancelled call ends the turn as aborted, keeps the session usable', async () => {
    const { manager } = setup([
      { steps: [], answer: 'late' },
      { steps: [], answer: 'on time' },
    ]);
    const controller = new AbortController();
    server.enqueue(openAIReply({ content: 'late' }, { delayMs: 3_000 }));
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    const aborted = await runTurn(
      { manager, client: clients().openai, model: 'gpt-4o' },
      's1',
      '[turn 0] slow',
      {
        signal: controller.signal,
      },
    );
    expect(aborted.stopReason).toBe('aborted');
    expect(Date.now() - started).toBeLessThan(2_000);
    const next = await runTurn(
      { manager, client: clients().openai, model: 'gpt-4o' },
      's1',
      '[turn 1] again',
    );
    expect(next).toMatchObject({ stopReason: 'answered', text: 'on time' });
  });

  it('subagent: the task runs in a session of its own and only its conclusion reaches the parent', async () => {
    const { model, manager } = setup([
      {
        steps: [[{ name: 'subagent', args: { task: '[turn 1] read src/deep.ts and report' } }]],
        answer: 'parent done',
      },
      {
        steps: [[{ name: 'read_file', args: { path: 'src/deep.ts', lines: 200 } }]],
        answer: 'src/deep.ts defines 200 values',
      },
    ]);
    const client = clients().openai;
    const subagent = createSubagentTool({
      config: { manager, client, model: 'gpt-4o' },
      tools: [readTool],
      sessionIdFor: (parent) => `${parent}/child`,
    });
    const result = await runTurn(
      { manager, client, model: 'gpt-4o', tools: [readTool, subagent] },
      'p',
      '[turn 0] delegate',
    );
    expect(result).toMatchObject({ stopReason: 'answered', text: 'parent done' });
    const parent = (await manager.history('p')).log;
    const childLog = (await manager.history('p/child')).log;
    const parentResult = parent
      .flatMap((message) => message.parts)
      .find((part) => part.type === 'tool-result');
    expect(parentResult).toMatchObject({
      name: 'subagent',
      content: 'src/deep.ts defines 200 values',
      isError: false,
    });
    // The 200 lines the child read are in the child's log, never in the parent's.
    expect(childLog.some((message) => message.role === 'tool')).toBe(true);
    expect(
      parent.some((message) =>
        message.parts.some((part) => part.type === 'tool-result' && part.content.includes('value199')),
      ),
    ).toBe(false);
    expect(textOf(childLog.at(-1) as Message)).toBe('src/deep.ts defines 200 values');
    expect(model.figures.requests).toBe(4);
  });

  it('a model that stopped because the window filled keeps its partial answer, compacts, and ends the turn so', async () => {
    const { manager, model } = setup([
      { steps: [[{ name: 'read_file', args: { path: 'src/big.ts', lines: 150 } }]], answer: 'read' },
      { steps: [], answer: 'after' },
    ]);
    const client = clients().anthropic;
    await runTurn({ manager, client, model: 'claude-sonnet-4-5', tools: [readTool] }, 's1', '[turn 0] read');
    const editsBefore = (await manager.history('s1')).edits.length;
    server.enqueue(
      anthropicReply({ text: 'The file defines 150 val', stopReason: 'model_context_window_exceeded' }),
    );
    const result = await runTurn(
      { manager, client, model: 'claude-sonnet-4-5', tools: [readTool] },
      's1',
      '[turn 1] summarize it',
    );
    expect(result).toMatchObject({ stopReason: 'window_full', text: 'The file defines 150 val' });
    const { log, edits } = await manager.history('s1');
    expect(log.at(-1)?.parts).toEqual([{ type: 'text', text: 'The file defines 150 val' }]);
    expect(edits.length).toBeGreaterThan(editsBefore);
    // The request fitted: no overflow is counted, so the next turn's first overflow is its first.
    const events: AgentEvent[] = [];
    model.forceOverflow(1);
    await runTurn(
      {
        manager,
        client,
        model: 'claude-sonnet-4-5',
        tools: [readTool],
        onEvent: (event) => events.push(event),
      },
      's1',
      '[turn 2] again',
    ).catch(() => undefined);
    const overflowed = events.flatMap((event) =>
      event.type === 'context' && event.event.type === 'context-overflowed' ? [event.event.attempt] : [],
    );
    expect(overflowed[0]).toBe(1);
  });

  it('uses the smaller window an overflow names from then on (a server loaded with less than it was said to have)', async () => {
    const turns: CodingTurn[] = [
      ...Array.from({ length: 4 }, (_, turn) => ({
        steps: [[{ name: 'read_file', args: { path: `src/m${turn}.ts`, lines: 120 } }]],
        answer: `m${turn} read`,
      })),
      { steps: [], answer: 'fits now' },
    ];
    const { manager } = setup(turns, 16_000);
    const client = clients().openai;
    for (let turn = 0; turn < 4; turn++)
      await runTurn(
        { manager, client, model: 'gpt-4o', tools: [readTool], contextWindow: 16_000 },
        's1',
        `[turn ${turn}] read`,
      );
    // The server turns out to serve 6,000 tokens.
    const small = scriptedCodingModel({ turns, window: 6_000, counter });
    server.setFallback(small.reply);
    const events: AgentEvent[] = [];
    const config = {
      manager,
      client,
      model: 'gpt-4o',
      tools: [readTool],
      contextWindow: 16_000,
      onEvent: (event: AgentEvent) => events.push(event),
    };
    const result = await runTurn(config, 's1', '[turn 4] and now?');
    expect(result).toMatchObject({ stopReason: 'answered', text: 'fits now' });
    expect(events).toContainEqual({ type: 'window-learned', contextWindow: 6_000 });
    expect(small.figures.overWindow).toBe(1);
    expect(small.figures.requests).toBe(2);
  });
});
