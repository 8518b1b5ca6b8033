/**
 * A coding session shaped the way Claude Code talks to the Messages API, for tests of the proxy against
 * an upstream that enforces Anthropic's rules (anthropic-rules-upstream.ts):
 *
 * - a long system prompt in text blocks, the last with `cache_control`;
 * - a dozen tools with long descriptions, the last with `cache_control`;
 * - extended thinking on, the `anthropic-beta` header set (interleaved thinking);
 * - turns of a tool loop: each model answer starts with thinking (some redacted), may say something, and
 *   calls one or two tools; the results are file reads, greps and test runs of tens of kilobytes, in the
 *   forms Claude Code renders them (`cat -n` numbering, `path:line:text`, a runner's log);
 * - `cache_control` on the last block of the two newest user messages, moved forward on every request,
 *   so the client's requests hold four breakpoints.
 *
 * Everything is generated from a fixed seed: the same session every run. The answers are what the model
 * says (the upstream signs their thinking as it sends them); the client appends each answer as it got it.
 */
import type { FakeAnthropicBlock } from '../../testing/fake-provider-server-replies.ts';

export const CLAUDE_CODE_MODEL = 'claude-sonnet-4-6';
/** The betas Claude Code asks for with thinking on (sent joined in `anthropic-beta`). */
export const CLAUDE_CODE_BETAS = [
  'claude-code-20250219',
  'interleaved-thinking-2025-05-14',
  'fine-grained-tool-streaming-2025-05-14',
];
export const CLAUDE_CODE_MAX_TOKENS = 8_192;
export const CLAUDE_CODE_THINKING = { type: 'enabled', budget_tokens: 4_096 } as const;
const EPHEMERAL = { type: 'ephemeral' } as const;

export interface SessionStep {
  /** What the model answers this request with. */
  answer: FakeAnthropicBlock[];
  /** The output of each tool the answer calls, by call id, in the order of the calls. */
  results: Array<{ id: string; content: string }>;
}

export interface SessionTurn {
  prompt: string;
  /** The model's answers, the last one with no tool call. */
  steps: SessionStep[];
}

// ---------------------------------------------------------------- the prompt and the tools

export function claudeCodeSystem(): Array<{ type: 'text'; text: string; cache_control?: typeof EPHEMERAL }> {
  const random = seeded(7);
  const rules: string[] = [];
  for (let index = 0; index < 90; index++) rules.push(`- ${sentence(random, 18 + (index % 9))}`);
  return [
    { type: 'text', text: 'You are a command-line coding agent working in the user’s repository.' },
    {
      type: 'text',
      text: [
        '# How to work',
        'Read the code before changing it. Prefer small, verifiable steps. Run the tests after each change.',
        ...rules.slice(0, 45),
        '# Tools',
        'Use the dedicated tools for reading, searching and editing files; use the shell for builds and tests.',
        ...rules.slice(45),
        '# Environment',
        'Working directory: /home/dev/parser-kit. Platform: linux. Today: 2026-03-14.',
      ].join('\n'),
      cache_control: EPHEMERAL,
    },
  ];
}

const TOOL_NAMES = [
  'Task',
  'Bash',
  'Glob',
  'Grep',
  'LS',
  'Read',
  'Edit',
  'MultiEdit',
  'Write',
  'WebFetch',
  'TodoWrite',
  'WebSearch',
] as const;

export function claudeCodeTools(): Array<Record<string, unknown>> {
  const random = seeded(11);
  return TOOL_NAMES.map((name, index) => ({
    name,
    description: Array.from({ length: 10 }, () => sentence(random, 16)).join(' '),
    input_schema: {
      type: 'object',
      properties: {
        [name === 'Bash' ? 'command' : name === 'Grep' ? 'pattern' : 'file_path']: {
          type: 'string',
          description: sentence(random, 12),
        },
        description: { type: 'string', description: sentence(random, 10) },
      },
      required: [name === 'Bash' ? 'command' : name === 'Grep' ? 'pattern' : 'file_path'],
      $schema: 'http://json-schema.org/draft-07/schema#',
    },
    ...(index === TOOL_NAMES.length - 1 && { cache_control: EPHEMERAL }),
  }));
}

// ---------------------------------------------------------------- the session

/** Tool-loop requests per turn; with each turn's final answer, `sum + turns` requests in all. */
export const CLAUDE_CODE_TURN_CALLS: readonly number[] = [12, 10, 9];
const PROMPTS = [
  'The tokenizer drops the last token when the input ends without a newline. Find why and fix it.',
  'Now make the parser report the line and column of every syntax error, and add tests for it.',
  'Run the whole test suite, fix whatever still fails, and summarize what you changed.',
];

export function claudeCodeSession(turnCalls: readonly number[] = CLAUDE_CODE_TURN_CALLS): SessionTurn[] {
  const random = seeded(2026);
  let call = 0;
  return turnCalls.map((calls, turn) => {
    const steps: SessionStep[] = [];
    for (let step = 0; step < calls; step++) {
      // Every fourth answer calls two tools at once, as Claude Code does when reads do not depend on each other.
      const parallel = step % 4 === 1 ? 2 : 1;
      const uses = Array.from({ length: parallel }, () =>
        toolCall(random, `toolu_01${pad(++call)}${tag(random)}`),
      );
      steps.push({
        answer: [
          ...thinkingOf(random, call),
          ...(step % 3 === 0 ? [{ type: 'text' as const, text: sentence(random, 14) }] : []),
          ...uses.map((use) => use.block),
        ],
        results: uses.map((use) => ({ id: use.block.id ?? '', content: use.output })),
      });
    }
    steps.push({
      answer: [...thinkingOf(random, ++call), { type: 'text', text: paragraph(random, 5) }],
      results: [],
    });
    return { prompt: PROMPTS[turn] ?? sentence(random, 12), steps };
  });
}

/** Thinking as the model sends it: mostly plain, some answers with a redacted block before it. */
function thinkingOf(random: () => number, call: number): FakeAnthropicBlock[] {
  const thinking: FakeAnthropicBlock = { type: 'thinking', thinking: paragraph(random, 2 + (call % 4)) };
  // The data is issued by the upstream; this placeholder is replaced as the answer leaves.
  if (call % 5 === 2) return [{ type: 'redacted_thinking', data: 'issued-by-the-upstream' }, thinking];
  if (call % 7 === 3) return [{ type: 'redacted_thinking', data: 'issued-by-the-upstream' }];
  return [thinking];
}

interface ToolUse {
  block: Extract<FakeAnthropicBlock, { type: 'tool_use' }>;
  output: string;
}

function toolCall(random: () => number, id: string): ToolUse {
  const file = `src/${pick(random, ['lexer', 'parser', 'tokenizer', 'ast', 'errors', 'emit'])}/${pick(random, ['index', 'scan', 'read', 'state', 'table'])}.ts`;
  const kind = random();
  if (kind < 0.5)
    return {
      block: { type: 'tool_use', id, name: 'Read', input: { file_path: `/home/dev/parser-kit/${file}` } },
      output: numbered(source(random, 15_000 + Math.floor(random() * 20_000))),
    };
  if (kind < 0.75) {
    const pattern = pick(random, ['endOfInput', 'peekToken', 'SyntaxError', 'column', 'advance\\(']);
    return {
      block: { type: 'tool_use', id, name: 'Grep', input: { pattern, output_mode: 'content', '-n': true } },
      output: grepOutput(random, pattern, 10_000 + Math.floor(random() * 10_000)),
    };
  }
  return {
    block: { type: 'tool_use', id, name: 'Bash', input: { command: 'npm test -- --reporter=verbose' } },
    output: testLog(random, 8_000 + Math.floor(random() * 8_000)),
  };
}

// ---------------------------------------------------------------- generated text

const WORDS = [
  'token',
  'parser',
  'input',
  'buffer',
  'offset',
  'line',
  'column',
  'state',
  'error',
  'range',
  'node',
  'scan',
  'peek',
  'advance',
  'emit',
  'table',
  'rule',
  'grammar',
  'span',
  'cursor',
  'stream',
  'value',
  'result',
  'check',
  'end',
  'start',
  'newline',
  'whitespace',
  'identifier',
  'literal',
  'keyword',
  'the',
  'a',
  'when',
  'then',
  'before',
  'after',
  'every',
  'should',
  'must',
  'keeps',
  'returns',
  'reads',
];

function sentence(random: () => number, words: number): string {
  const out = Array.from({ length: words }, () => pick(random, WORDS));
  const first = out[0] ?? 'the';
  out[0] = first.charAt(0).toUpperCase() + first.slice(1);
  return `${out.join(' ')}.`;
}

function paragraph(random: () => number, sentences: number): string {
  return Array.from({ length: sentences }, () => sentence(random, 12 + Math.floor(random() * 10))).join(' ');
}

/** TypeScript-looking source of about `size` characters. */
function source(random: () => number, size: number): string {
  const lines: string[] = ["import { Token, TokenKind } from './token';", ''];
  let length = 0;
  let index = 0;
  while (length < size) {
    const name = `${pick(random, WORDS)}${pick(random, ['Of', 'At', 'To', 'From'])}${pick(random, WORDS)}${index++}`;
    const block = [
      `/** ${sentence(random, 10)} */`,
      `export function ${name}(state: ScanState, offset: number): Token | undefined {`,
      `  const ${pick(random, WORDS)} = state.input.charCodeAt(offset + ${Math.floor(random() * 40)});`,
      `  if (offset >= state.input.length) return undefined; // ${sentence(random, 6)}`,
      `  return { kind: TokenKind.${pick(random, ['Identifier', 'Number', 'String', 'Punct'])}, start: offset, end: offset + ${1 + Math.floor(random() * 9)} };`,
      '}',
      '',
    ];
    lines.push(...block);
    length += block.join('\n').length;
  }
  return lines.join('\n');
}

/** `cat -n` numbering, as Claude Code's Read shows a file. */
function numbered(text: string): string {
  return text
    .split('\n')
    .map((line, index) => `${String(index + 1).padStart(6)}\t${line}`)
    .join('\n');
}

function grepOutput(random: () => number, pattern: string, size: number): string {
  const lines: string[] = [];
  let length = 0;
  while (length < size) {
    const line = `src/${pick(random, ['lexer', 'parser', 'tokenizer'])}/${pick(random, WORDS)}.ts:${1 + Math.floor(random() * 900)}:  if (${pattern.replace('\\(', '(')}state.${pick(random, WORDS)}) return ${pick(random, WORDS)}; // ${sentence(random, 5)}`;
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join('\n');
}

function testLog(random: () => number, size: number): string {
  const lines = ['> parser-kit@0.4.1 test', '> vitest run --reporter=verbose', ''];
  let length = 0;
  let failed = 0;
  while (length < size) {
    const ok = random() > 0.08;
    if (!ok) failed += 1;
    const line = ` ${ok ? '✓' : '×'} src/${pick(random, WORDS)}.test.ts > ${sentence(random, 8)} ${Math.floor(random() * 40)}ms`;
    lines.push(line);
    length += line.length + 1;
  }
  lines.push('', ` Tests  ${failed} failed | ${lines.length - failed} passed`);
  return lines.join('\n');
}

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

function pad(value: number): string {
  return String(value).padStart(4, '0');
}

function tag(random: () => number): string {
  return Math.floor(random() * 0xffffff)
    .toString(36)
    .padStart(5, '0');
}

/** mulberry32: a small seeded generator, so the session is the same every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
