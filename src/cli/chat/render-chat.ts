/**
 * What `ctxkit chat` prints, as pure functions of what happened: a tool call and its result on one line
 * each, ctxkit's compactions as a dim line, the status line, and `/context`. Everything from the model,
 * a tool or a file goes through the terminal escape first: none of it is trusted to be printable.
 */
import pc from 'picocolors';
import type { ContextLevelThresholds } from '../../core/budget/context-level.ts';
import { escapeForTerminal } from '../../core/escape-for-terminal.ts';
import type { ContextEvent } from '../../core/events.ts';
import type { SessionStats } from '../../engine/session-stats.ts';
import { colourByLevel } from '../context-colour.ts';

/** Characters of a tool call's arguments or a result's first line shown on its one line. */
export const TOOL_LINE_CHARS = 100;

type Colors = Pick<typeof pc, 'yellow' | 'red' | 'bold' | 'dim' | 'cyan' | 'green'>;

const oneLine = (text: string, max = TOOL_LINE_CHARS): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  const cut = flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
  return escapeForTerminal(cut);
};

const count = (value: number): string => Math.round(value).toLocaleString('en-US');
const percent = (value: number): string => (Number.isFinite(value) ? `${Math.round(value * 100)}%` : '—');

export function toolCallLine(name: string, args: string, colors: Colors = pc): string {
  return `${colors.cyan('⚙')} ${colors.bold(escapeForTerminal(name))} ${colors.dim(oneLine(args))}`;
}

export function toolResultLine(content: string, isError: boolean, colors: Colors = pc): string {
  const lines = content === '' ? 0 : content.replace(/\n$/, '').split('\n').length;
  const first = content.split('\n').find((line) => line.trim() !== '') ?? '';
  const size = colors.dim(`(${count(lines)} line${lines === 1 ? '' : 's'}, ${count(content.length)} chars)`);
  return isError
    ? `  ${colors.red('✗')} ${oneLine(first)} ${size}`
    : `  ${colors.green('→')} ${oneLine(first)} ${size}`;
}

/** ctxkit's own work during a turn, one dim line each; undefined for events people need not see. */
export function contextEventLine(event: ContextEvent, colors: Colors = pc): string | undefined {
  switch (event.type) {
    case 'compaction-finished':
      return colors.dim(
        `· ctxkit ${event.layer} (${event.reason}): ${count(event.tokensBefore)} → ${count(event.tokensAfter)} tokens, ${count(event.messagesBefore)} → ${count(event.messagesAfter)} messages${event.error ? `; ${oneLine(event.error)}` : ''}`,
      );
    case 'tool-output-spilled':
      return colors.dim(
        `· ctxkit offloaded a ${count(event.bytes)}-byte result to ${escapeForTerminal(event.blobRef)}`,
      );
    case 'tool-results-cleared':
      return colors.dim(
        `· ctxkit cleared ${count(event.count)} old tool results (${count(event.tokensFreed)} tokens)`,
      );
    case 'summary-applied':
      return colors.dim(
        `· ctxkit summary applied through message ${event.throughSeq} (${count(event.tokens)} tokens)`,
      );
    case 'session-restored':
      return colors.dim(`· resumed: ${count(event.messages)} messages, ${count(event.edits)} edits`);
    default:
      return undefined;
  }
}

export function statusLine(
  stats: Pick<SessionStats, 'pressure' | 'tokens' | 'contextWindow' | 'maxOutputTokens' | 'messages'>,
  display: ContextLevelThresholds,
  extra: { model: string; sessionId: string },
  colors: Colors = pc,
): string {
  const context = colourByLevel(`context ${percent(stats.pressure)}`, stats.pressure, display, colors);
  return `${context} ${colors.dim(
    `· ${count(stats.tokens.input)} / ${count(stats.contextWindow - stats.maxOutputTokens)} tokens · ${count(stats.messages.log)} message${stats.messages.log === 1 ? '' : 's'} · ${escapeForTerminal(extra.model)} · session ${escapeForTerminal(extra.sessionId)}`,
  )}`;
}

/**
 * `/context` (cowagent, deepagents): messages and their roles, characters, tokens by category with the
 * free room, where clearing and summarizing fire, and what happens next at this pressure.
 */
export function renderContext(
  stats: SessionStats,
  display: ContextLevelThresholds,
  colors: Colors = pc,
): string {
  const usable = stats.contextWindow - stats.maxOutputTokens;
  const free = Math.max(0, usable - stats.tokens.input);
  const rows: [string, number][] = [
    ['system', stats.tokens.system],
    ['tools', stats.tokens.tools],
    ['memory', stats.tokens.memory],
    ['summary', stats.tokens.summary],
    ['history', stats.tokens.history],
    ['free', free],
    ['output reserve', stats.maxOutputTokens],
  ];
  const width = Math.max(...rows.map(([, value]) => count(value).length));
  const lines = [
    `${colors.bold('context')} ${colourByLevel(percent(stats.pressure), stats.pressure, display, colors)} of ${count(usable)} usable tokens (window ${count(stats.contextWindow)})`,
    `messages: ${count(stats.messages.view)} in view of ${count(stats.messages.log)} in the log · user ${stats.roles.user}, assistant ${stats.roles.assistant}, tool ${stats.roles.tool} · ${count(stats.chars)} characters · ${count(stats.turns)} turn${stats.turns === 1 ? '' : 's'} · ${count(stats.edits)} edits`,
    'tokens:',
    ...rows.map(
      ([name, value]) =>
        `  ${name.padEnd(15)} ${count(value).padStart(width)}  ${colors.dim(percentOfWindow(value, stats.contextWindow))}`,
    ),
  ];
  const { clearing, summarize } = stats.thresholds;
  lines.push(
    `clearing: ${clearing ? `at ${percent(clearing.pressure)} (${count(clearing.tokens)} tokens)` : 'off'} · summarizing: ${summarize ? `at ${percent(summarize.pressure)} (${count(summarize.tokens)} tokens)` : 'off'}`,
  );
  if (stats.summary)
    lines.push(
      `summary: through message ${stats.summary.throughSeq}, ${count(stats.summary.tokens)} tokens (${escapeForTerminal(stats.summary.producer)})`,
    );
  lines.push(`next: ${whatHappensNext(stats)}`);
  return lines.join('\n');
}

function percentOfWindow(value: number, window: number): string {
  return window > 0 ? `${((value / window) * 100).toFixed(1)}%` : '';
}

/** The next thing ctxkit will do as the context grows, in words. */
export function whatHappensNext(stats: SessionStats): string {
  const input = stats.tokens.input;
  const steps = [
    stats.thresholds.clearing && { name: 'old tool results are offloaded', ...stats.thresholds.clearing },
    stats.thresholds.summarize && { name: 'older turns are summarized', ...stats.thresholds.summarize },
  ].filter((step): step is { name: string; pressure: number; tokens: number } => Boolean(step));
  const ahead = steps.filter((step) => step.tokens > input).sort((a, b) => a.tokens - b.tokens);
  const first = ahead[0];
  if (first)
    return `${first.name} in ${count(first.tokens - input)} more tokens (at ${percent(first.pressure)})`;
  if (steps.length > 0) return 'past every threshold: the next call compacts before it is sent';
  return 'no automatic compaction is configured; the request is fitted to the window before each call';
}
