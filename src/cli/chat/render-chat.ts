/**
 * What `ctxkit chat` prints, as pure functions of what happened: a tool call and its result on one line
 * each, ctxkit's compactions as a dim line, the status line, and `/context`. Everything from the model,
 * a tool or a file goes through the terminal escape first: none of it is trusted to be printable.
 */
import pc from 'picocolors';
import type { ContextLevelThresholds } from '../../core/budget/context-level.ts';
import { escapeForTerminal } from '../../core/escape-for-terminal.ts';
import type { ContextEvent } from '../../core/events.ts';
import {
  deviationLines,
  deviationsInForce,
  loweredThresholds,
  windowRuleDeviations,
} from '../../core/policy/describe-deviations.ts';
import type { Policy } from '../../core/policy/policy-schema.ts';
import { isPresetName, PRESET_DEVIATIONS, PRESETS } from '../../core/policy/presets/index.ts';
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

/** What `/context` reads of the policy: its display levels and what its steps do. */
export type ContextPolicy = Pick<Policy, 'display' | 'clearing' | 'summarize' | 'trim'>;

/** The seed a chat's policy comes from: its preset's name and policy, and its deviations in words. */
export interface ContextSeed {
  name: string;
  policy: ContextPolicy;
  deviations: readonly string[];
}

/**
 * The seed `/context` compares with: the preset's own policy, and its declared deviations with the figures
 * this window gives (a threshold past the largest request that fits). None for `default`, ctxkit's own.
 */
export function contextSeed(
  preset: string | undefined,
  policy: Policy,
  stats: Pick<SessionStats, 'contextWindow' | 'maxOutputTokens'>,
): ContextSeed | undefined {
  if (preset === undefined || preset === 'default' || !isPresetName(preset)) return undefined;
  return {
    name: preset,
    policy: PRESETS[preset],
    deviations: deviationLines(
      [
        ...deviationsInForce(PRESET_DEVIATIONS[preset], PRESETS[preset], policy),
        ...windowRuleDeviations(policy),
      ],
      loweredThresholds(policy, stats),
    ),
  };
}

/**
 * `/context` (cowagent, deepagents): messages and their roles, characters, tokens by category with the
 * free room, each step of the policy (where it fires and what it does), the preset's deviations from its
 * seed, and what happens next at this pressure.
 */
export function renderContext(
  stats: SessionStats,
  policy: ContextPolicy,
  colors: Colors = pc,
  seed?: ContextSeed,
): string {
  const { display } = policy;
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
    'steps:',
    // A policy's own words (a clearing placeholder) reach the terminal escaped.
    ...policySteps(stats, policy, seed).map(
      (step) => `  ${step.name.padEnd(15)} ${escapeForTerminal(`${step.when}: ${step.does}`)}`,
    ),
  ];
  if (stats.summary)
    lines.push(
      `summary: through message ${stats.summary.throughSeq}, ${count(stats.summary.tokens)} tokens (${escapeForTerminal(stats.summary.producer)})`,
    );
  if (seed && seed.deviations.length > 0)
    lines.push(
      `deviations from the ${escapeForTerminal(seed.name)} seed:`,
      ...seed.deviations.map((line) => `  ${escapeForTerminal(line)}`),
    );
  lines.push(`next: ${escapeForTerminal(whatHappensNext(stats, policy))}`);
  return lines.join('\n');
}

const possessive = (name: string): string => (name.endsWith('s') ? `${name}'` : `${name}'s`);

function percentOfWindow(value: number, window: number): string {
  return window > 0 ? `${((value / window) * 100).toFixed(1)}%` : '';
}

/** What each of a policy's steps does, by its kind, in words. */
export function stepWords(policy: Pick<Policy, 'clearing' | 'summarize' | 'trim'>): {
  clearing: string;
  summarize: string;
  trim: string;
} {
  const { clearing, summarize, trim } = policy;
  return {
    clearing: clearing.offload
      ? 'old tool results are offloaded behind pointers (read_offloaded reads them back)'
      : `old tool results are cleared to ${JSON.stringify(clearing.placeholder)} (not kept)`,
    summarize: summarize.strategy === 'drop' ? 'older turns are dropped' : 'older turns are summarized',
    trim: trim.injectSummary ? 'the oldest turns are trimmed and summarized' : 'the oldest turns are trimmed',
  };
}

/**
 * The policy's steps with where each fires: clearing and summarizing at a pressure (a threshold past the
 * largest request that fits fires there instead, said as the deviation it is), trimming past a turn count.
 */
function policySteps(
  stats: SessionStats,
  policy: ContextPolicy,
  seed: ContextSeed | undefined,
): { name: string; when: string; does: string }[] {
  const words = stepWords(policy);
  const { clearing, summarize } = stats.thresholds;
  const at = (threshold: { pressure: number; tokens: number }, configured: number, seedFigure?: number) => {
    const where = `at ${percent(threshold.pressure)} (${count(threshold.tokens)} tokens)`;
    if (!(configured > threshold.pressure)) return where;
    const figure =
      seed !== undefined && seedFigure === configured
        ? `${possessive(escapeForTerminal(seed.name))} ${percent(configured)}`
        : `the ${percent(configured)} set`;
    return `${where} (deviation: ${figure} is past the largest request that fits, so it fires at ${percent(threshold.pressure)})`;
  };
  const steps: { name: string; when: string; does: string }[] = [];
  steps.push(
    clearing
      ? {
          name: 'clearing',
          when: at(clearing, policy.clearing.trigger, seed?.policy.clearing.trigger),
          does: words.clearing,
        }
      : { name: 'clearing', when: 'off', does: 'old tool results stay' },
  );
  if (policy.trim.enabled && policy.trim.maxTurns > 0)
    steps.push({
      name: 'trimming',
      when: `past ${count(policy.trim.maxTurns)} turns (now ${count(stats.turns)})`,
      does: words.trim,
    });
  steps.push(
    summarize
      ? {
          name: 'summarizing',
          when: `${at(summarize, policy.summarize.trigger, seed?.policy.summarize.trigger)}${
            policy.summarize.maxMessages > 0 && policy.summarize.maxMessagesWhen === 'always'
              ? ` or past ${count(policy.summarize.maxMessages)} messages (now ${count(stats.messages.view)})`
              : ''
          }`,
          does: words.summarize,
        }
      : { name: 'summarizing', when: 'off', does: 'no automatic summary' },
  );
  return steps;
}

/** The next thing ctxkit will do as the context grows, in words: the step's own kind. */
export function whatHappensNext(
  stats: SessionStats,
  policy: Pick<Policy, 'clearing' | 'summarize' | 'trim'>,
): string {
  const input = stats.tokens.input;
  const words = stepWords(policy);
  const steps = [
    stats.thresholds.clearing && { name: words.clearing, ...stats.thresholds.clearing },
    stats.thresholds.summarize && { name: words.summarize, ...stats.thresholds.summarize },
  ].filter((step): step is { name: string; pressure: number; tokens: number } => Boolean(step));
  const ahead = steps.filter((step) => step.tokens > input).sort((a, b) => a.tokens - b.tokens);
  const first = ahead[0];
  if (first)
    return `${first.name} in ${count(first.tokens - input)} more tokens (at ${percent(first.pressure)})`;
  if (steps.length > 0) return 'past every threshold: the next call compacts before it is sent';
  return 'no automatic compaction is configured; the request is fitted to the window before each call';
}
