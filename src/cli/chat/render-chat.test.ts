import pc from 'picocolors';
import { describe, expect, it } from 'vitest';
import { PRESETS } from '../../core/policy/presets/index.ts';
import type { SessionStats } from '../../engine/session-stats.ts';
import {
  contextEventLine,
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

  it('says what happens next as the context grows', () => {
    expect(whatHappensNext(stats(0.3))).toBe('old tool results are offloaded in 3,000 more tokens (at 60%)');
    expect(whatHappensNext(stats(0.7))).toBe('older turns are summarized in 1,500 more tokens (at 85%)');
    expect(whatHappensNext(stats(0.9))).toMatch(/past every threshold/);
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
