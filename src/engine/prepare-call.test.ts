import { describe, expect, it } from 'vitest';
import type { MessageInput } from '../core/message.ts';
import type { Policy } from '../core/policy/policy-schema.ts';
import { PRESETS } from '../core/policy/presets/index.ts';
import { createHeuristicCounter } from '../core/tokens/heuristic-counter.ts';
import { MessageTokenCache } from '../core/tokens/message-token-cache.ts';
import type { ToolDefinition } from '../core/tool-definition.ts';
import { findPairingViolations } from '../core/view/tool-pairing-repair.ts';
import { assistant, callsTo, result, user } from '../testing/build-messages.ts';
import { createContextManager } from './context-manager.ts';
import type { PrepareResult } from './prepare-call.ts';

/**
 * Regressions found by the property tests (guarantees.property.test.ts): the proactive path returns a
 * request that fits whenever one exists, and its figures count everything that is sent.
 */

const counter = createHeuristicCounter(4);
const clock = () => {
  let now = 1_700_000_000_000;
  return () => (now += 1_000);
};

function manager(policy: Policy) {
  return createContextManager({ policy, counter, clock: clock() });
}

const tools = (count: number, description: string): ToolDefinition[] =>
  Array.from({ length: count }, (_, index) => ({
    name: `tool_${index}`,
    description,
    parameters: { type: 'object', properties: { path: { type: 'string' } } },
  }));

/** What the request costs, counted again from what is sent (as the property tests do). */
function recount(policy: Policy, prepared: PrepareResult, definitions: number): number {
  const cache = new MessageTokenCache({
    messageOverheadTokens: policy.tokens.messageOverhead,
    mediaTokens: policy.tokens.mediaTokens,
  });
  let tokens = definitions;
  if (prepared.system) tokens += counter.count(prepared.system) + policy.tokens.messageOverhead;
  for (const message of prepared.messages) tokens += cache.estimate(message, counter).total;
  return tokens;
}

function expectFits(prepared: PrepareResult): void {
  const { stats } = prepared;
  expect(stats.tokens.input + stats.maxOutputTokens).toBeLessThanOrEqual(stats.contextWindow);
  expect(findPairingViolations(prepared.messages)).toEqual([]);
}

/** One request, then many tool calls: the whole session is a single turn. */
function longTurn(steps: number, resultChars: number): MessageInput[] {
  const messages: MessageInput[] = [user('fix the failing tests')];
  for (let step = 0; step < steps; step++) {
    messages.push(callsTo([`call_${step}`, 'bash', `{"command":"npm test -- case${step}"}`]));
    messages.push(
      result(`call_${step}`, `case ${step}: ${'output '.repeat(resultChars / 7)}`, { name: 'bash' }),
    );
  }
  return messages;
}

describe('prepare fits whenever a fitting request exists', () => {
  it('cuts inside a single long turn that is over even snipped (turn-cut presets), and counts the note it adds', async () => {
    const policy = PRESETS.default;
    const ctx = manager(policy);
    await ctx.append('s', longTurn(40, 200));
    // A 2,000-token window with 1,000 of tool definitions: forty calls do not fit even with their
    // results cleared and snipped, and default cuts at turn boundaries only.
    const prepared = await ctx.prepare('s', {
      contextWindow: 2_000,
      maxOutputTokens: 400,
      tools: tools(8, 'd'.repeat(400)),
    });
    expectFits(prepared);
    expect(prepared.messages.at(-1)?.parts[0]).toMatchObject({ type: 'tool-result', callId: 'call_39' });
    // The cut leaves the history starting with the assistant: the note put first is counted.
    expect(prepared.messages[0]?.id).toMatch(/^continuation-/);
    expect(recount(policy, prepared, prepared.stats.tokens.tools)).toBe(prepared.stats.tokens.input);
    // Its reminder did not fit beside the kept calls: it went, rather than the request failing.
    const { edits } = await ctx.history('s');
    expect(edits.slice(-2).map((edit) => [edit.type, edit.reason])).toEqual([
      ['drop', 'token_budget'],
      ['reset', 'token_budget'],
    ]);
  });

  it('counts the continuation note after a summary placed as a system message (003)', async () => {
    const policy = PRESETS.digitorn;
    const ctx = manager(policy);
    await ctx.append('s', longTurn(20, 200));
    expect((await ctx.compact('s')).compacted).toBe(true);
    const prepared = await ctx.prepare('s', { contextWindow: 16_000, maxOutputTokens: 1_000 });
    expect(prepared.messages.map((message) => message.meta.kind).slice(0, 2)).toEqual([
      'system_note',
      'reminder',
    ]);
    expect(recount(policy, prepared, 0)).toBe(prepared.stats.tokens.input);
  });

  it('is bound by the window, not by a token budget the fixed regions alone exceed (000)', async () => {
    // cowagent's 50,000-token budget is a compaction target; a 50,000-token system prompt in a larger
    // window leaves room for the message, so the request is sent rather than refused.
    const ctx = manager(PRESETS.cowagent);
    await ctx.append('s', [user('hi')]);
    const prepared = await ctx.prepare('s', {
      contextWindow: 51_177,
      maxOutputTokens: 511,
      system: 's'.repeat(200_000),
    });
    expectFits(prepared);
    expect(prepared.stats.tokens.input).toBeGreaterThan(50_000);
    expect(prepared.messages.at(-1)?.parts[0]).toEqual({ type: 'text', text: 'hi' });
  });

  it('honours reported usage above its own count when planning what to keep (001 anchoring)', async () => {
    const ctx = manager(PRESETS.digitorn);
    const request = { contextWindow: 2_000, maxOutputTokens: 20, tools: tools(15, 'd'.repeat(225)) };
    await ctx.append('s', longTurn(4, 300));
    const first = await ctx.prepare('s', request);
    // The provider counted 20% more than we did: all of it is history, which our count under-states.
    // Our own count still fits; the anchored estimate does not, until something is cut.
    const usage = { inputTokens: Math.round(first.stats.tokens.input * 1.2), outputTokens: 24 };
    await ctx.append('s', [{ ...assistant('checking'), usage }, ...longTurn(1, 300).slice(1)]);
    const prepared = await ctx.prepare('s', request);
    expectFits(prepared);
    expect(prepared.stats.edits).toBeGreaterThan(0);
  });
});

describe('offloading a result that was spilled on arrival', () => {
  it('points at the spilled blob with the whole output, even after the view clipped it further', async () => {
    const policy = PRESETS.default;
    const m = manager(policy);
    const request = { contextWindow: 8_000, maxOutputTokens: 1_000 };
    // Over the line cap: capped and spilled on arrival; the capped text is still past a quarter of this
    // window, so the view clips it again.
    const lines = Array.from({ length: 3_000 }, (_, line) => `line ${line} of the build log`);
    await m.append('s', [
      user('build it'),
      callsTo(['c1', 'bash', '{"command":"make"}']),
      result('c1', lines.join('\n'), { name: 'bash' }),
    ]);
    await m.prepare('s', request);
    await m.append('s', [
      callsTo(['c2', 'bash', '{"command":"make test"}']),
      result('c2', 'ok', { name: 'bash' }),
    ]);
    const prepared = await m.prepare('s', request);
    const pointer = prepared.messages
      .flatMap((message) => message.parts)
      .find((part) => part.type === 'tool-result' && part.callId === 'c1');
    const ref =
      pointer?.type === 'tool-result' ? /read_offloaded\("([^"]+)"\)/.exec(pointer.content)?.[1] : undefined;
    expect(ref).toBeDefined();
    const stored = await m.readOffloaded('s', ref ?? '');
    expect(stored.split('\n')).toHaveLength(3_000);
    expect(stored).toContain('line 2999 of the build log');
  });
});
