import pc from 'picocolors';
import { describe, expect, it } from 'vitest';
import { PRESETS } from '../../core/policy/presets/index.ts';
import type { SessionStats } from '../../engine/session-stats.ts';
import {
  contextEventLine,
  contextSeed,
  renderContext,
  statusLine,
  toolCallLine,
  toolResultLine,
  whatHappensNext,
} from './render-chat.ts';

const colors = pc.createColors(true);
const YELLOW = '\u001b[33m';
const RED = '\u001b[31m';

function stats(pressure: number): SessionStats {
  const usable = 10_000;
  const input = Math.round(pressure * usable);
  return {
    sessionId: 's',
    messages: { log: 12, view: 10 },
    roles: { user: 4, assistant: 4, tool: 2 },
    chars: 4_000,
    turns: 4,
    edits: 1,
    tokens: { system: 100, tools: 400, summary: 0, memory: 0, history: input - 500, input },
    contextWindow: 12_000,
    maxOutputTokens: 2_000,
    pressure,
    thresholds: {
      clearing: { pressure: 0.6, tokens: 6_000 },
      summarize: { pressure: 0.85, tokens: 8_500 },
    },
    summary: undefined,
  };
}

describe('the chat’s lines', () => {
  it('colours the status line yellow from 70 % and red from 90 % (the policy’s display levels)', () => {
    const { display } = PRESETS.default;
    const line = (pressure: number) =>
      statusLine(stats(pressure), display, { model: 'm', sessionId: 's' }, colors);
    expect(line(0.5)).not.toContain(YELLOW);
    expect(line(0.5)).not.toContain(RED);
    expect(line(0.75)).toContain(YELLOW);
    expect(line(0.95)).toContain(RED);
    expect(line(0.75)).toContain('context 75%');
  });

  it('says what happens next as the context grows, by what the step does', () => {
    const { default: ctxkit, deepagents } = PRESETS;
    expect(whatHappensNext(stats(0.3), ctxkit)).toBe(
      'old tool results are offloaded behind pointers (read_offloaded reads them back) in 3,000 more tokens (at 60%)',
    );
    // deepagents clears (ContextEditingMiddleware forgets): it does not offload.
    expect(whatHappensNext(stats(0.3), deepagents)).toBe(
      'old tool results are cleared to "[cleared]" (not kept) in 3,000 more tokens (at 60%)',
    );
    expect(whatHappensNext(stats(0.7), ctxkit)).toBe(
      'older turns are summarized in 1,500 more tokens (at 85%)',
    );
    expect(whatHappensNext(stats(0.9), ctxkit)).toMatch(/past every threshold/);
  });

  it('/context lists each step by its kind, and a threshold past the largest request that fits as a deviation', () => {
    const plain = pc.createColors(false);
    // A 200k window reserving 64k: deepagents' 85 % of the window is past the largest request (68 %).
    const lowered: SessionStats = {
      ...stats(0.3),
      contextWindow: 200_000,
      maxOutputTokens: 64_000,
      thresholds: {
        clearing: { pressure: 0.6, tokens: 120_000 },
        summarize: { pressure: 0.68, tokens: 136_000 },
      },
    };
    const seed = contextSeed('deepagents', PRESETS.deepagents, lowered);
    const text = renderContext(lowered, PRESETS.deepagents, plain, seed);
    expect(text).toMatch(
      /^ {2}clearing +at 60% \(120,000 tokens\): old tool results are cleared to "\[cleared\]" \(not kept\)$/m,
    );
    expect(text).toMatch(
      /^ {2}summarizing +at 68% \(136,000 tokens\) \(deviation: deepagents' 85% is past the largest request that fits, so it fires at 68%\): older turns are summarized$/m,
    );
    expect(text).toMatch(/^deviations from the deepagents seed:$/m);
    expect(text).toMatch(
      /^ {2}summarize\.trigger — the seed: .*85 % of the window; ctxkit: .*With this window: 85% as set, 68% used/m,
    );
    expect(text).toMatch(/^ {2}budget\.finalGuard — the seed: /m);
    // cowagent trims by turns; the default has no seed to deviate from.
    const cowagent = renderContext(
      stats(0.3),
      PRESETS.cowagent,
      plain,
      contextSeed('cowagent', PRESETS.cowagent, stats(0.3)),
    );
    expect(cowagent).toMatch(
      /^ {2}trimming +past 20 turns \(now 4\): the oldest turns are trimmed and summarized$/m,
    );
    expect(contextSeed('default', PRESETS.default, stats(0.3))).toBeUndefined();
    // picoclaw summarizes past a share of the window or past 20 messages.
    expect(renderContext(stats(0.3), PRESETS.picoclaw, plain)).toMatch(
      /^ {2}summarizing +at 85% \(8,500 tokens\) or past 20 messages \(now 10\): older turns are summarized$/m,
    );
  });

  it("escapes a policy's own words: a clearing placeholder with control characters", () => {
    const plain = pc.createColors(false);
    const policy = {
      ...PRESETS.deepagents,
      clearing: { ...PRESETS.deepagents.clearing, placeholder: '\u001b]0;owned\u0007\u009b31m[x]\u202e' },
    };
    const text = renderContext(stats(0.3), policy, plain);
    expect(text).toContain('old tool results are cleared to');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters looked for are the point.
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
  });

  it('shows a tool call and its result on one line each, escaped', () => {
    const plain = pc.createColors(false);
    expect(toolCallLine('run_command', '{"command":"echo \\u001b[31mred"}', plain)).not.toContain(
      '\u001b[31m',
    );
    expect(toolResultLine('line one\u001b]0;title\u0007\nline two\n', false, plain)).toBe(
      '  → line one\\x1b]0;title\\x07 (2 lines, 28 chars)',
    );
    expect(toolResultLine('boom', true, plain)).toBe('  ✗ boom (1 line, 4 chars)');
    expect(
      contextEventLine(
        { type: 'tool-results-cleared', sessionId: 's', at: 0, count: 3, tokensFreed: 4_200 },
        plain,
      ),
    ).toBe('· ctxkit cleared 3 old tool results (4,200 tokens)');
  });
});
