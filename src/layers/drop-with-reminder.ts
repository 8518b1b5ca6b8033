import type { DropEdit, Summary } from '../core/edit.ts';
import type { Message } from '../core/message.ts';
import { textOf, toolResultOf } from '../core/message.ts';
import { startsTurn } from '../core/turns/parse-turn-boundaries.ts';
import { clipHeadTail, clipLine } from './clip-text.ts';
import { describeCall, isErrorResult, resultHeadline } from './describe-tool-use.ts';
import { dropEditForCut } from './drop-edit.ts';
import type { EditOptions } from './edit-meta.ts';
import type { LayerInput } from './layer-input.ts';
import { planRecentSplit, type RecentSplitOptions } from './split-recent.ts';
import { callsByResultIndex, toolNameOf } from './tool-call-lookup.ts';

/**
 * digitorn's `truncate` strategy: find a safe split point, drop everything before it, and inject a
 * single message recapping the goal and the recent activity so the agent does not lose continuity
 * (`_build_context_reminder`). No model call: the cheap path, and the only one left when the model
 * refuses (digitorn's emergency compaction halves keep_recent, minimum 4, and truncates).
 */

export const CONTEXT_REMINDER_PREFIX = '[Context reminder]';
export const DEFAULT_REMINDER_MAX_CHARS = 2_000;
/** digitorn emergency: "Halves keep_recent (minimum 4)". */
export const EMERGENCY_MIN_KEEP_RECENT = 4;

/** digitorn's emergency keep: half of keep_recent, never under 4. */
export function emergencyKeepRecent(keepRecent: number, minimum = EMERGENCY_MIN_KEEP_RECENT): number {
  return Math.max(minimum, Math.floor(keepRecent / 2));
}

export interface ContextReminderOptions {
  /** Runes, head + tail. */
  maxChars?: number;
  /** The reminder of an earlier drop: its goal carries over when no summary says it. */
  previousReminder?: string | undefined;
  /** How many of the dropped part's last user requests and tool calls to list. */
  requests?: number;
  toolCalls?: number;
}

const GOAL_MAX_CHARS = 400;
const ITEM_MAX_CHARS = 200;
// Under a small maxChars, lines shrink before the whole reminder is clipped: the goal must survive.
const GOAL_SHARE = 0.3;
const ITEM_SHARE = 0.1;

/**
 * The reminder for a drop of `older` (with `recent` kept): the goal — the previous summary's intent,
 * else the previous reminder's goal, else the first real user request — and what was going on just
 * before the cut: the last requests, the last tool calls with their key arguments, the last error and
 * the agent's last reply.
 */
export function buildContextReminder(
  older: readonly Message[],
  recent: readonly Message[],
  previousSummary?: Summary,
  options: ContextReminderOptions = {},
): string {
  const maxChars = options.maxChars ?? DEFAULT_REMINDER_MAX_CHARS;
  const goalMax = Math.min(GOAL_MAX_CHARS, Math.floor(maxChars * GOAL_SHARE));
  const itemMax = Math.min(ITEM_MAX_CHARS, Math.max(40, Math.floor(maxChars * ITEM_SHARE)));
  const requests = older.filter((message) => startsTurn(message) && textOf(message).trim());
  const goal =
    summaryIntent(previousSummary) ??
    reminderGoal(options.previousReminder) ??
    firstRequest(requests) ??
    firstRequest(recent.filter((message) => startsTurn(message)));

  const lines = [
    `${CONTEXT_REMINDER_PREFIX} ${older.length} earlier message${older.length === 1 ? ' was' : 's were'} dropped to keep the conversation within the context window.`,
  ];
  if (goal) lines.push(`Goal: ${clipLine(goal, goalMax)}`);

  const lastRequests = requests
    .slice(-(options.requests ?? 3))
    .map((message) => clipLine(textOf(message), itemMax))
    // The first request is often the goal itself: not worth saying twice.
    .filter((text) => goal === undefined || clipLine(goal, itemMax) !== text);
  if (lastRequests.length > 0) lines.push('Recent requests:', ...lastRequests.map((text) => `- ${text}`));

  const activity = toolActivity(older, itemMax);
  const lastCalls = activity.slice(-(options.toolCalls ?? 5));
  if (lastCalls.length > 0) {
    lines.push(
      'Recent tool calls:',
      ...lastCalls.map((use) => `- ${use.call}${use.failed ? ' → error' : ''}`),
    );
  }
  const lastError = activity.findLast((use) => use.failed);
  if (lastError) lines.push(`Last error: ${lastError.call}: ${lastError.headline}`);

  const lastReply = older.findLast((message) => message.role === 'assistant' && textOf(message).trim());
  if (lastReply) lines.push(`Last reply: ${clipLine(textOf(lastReply), itemMax)}`);

  const reminder = lines.join('\n');
  return (
    clipHeadTail(reminder, {
      maxChars,
      headFraction: 0.75,
      notice: (omitted) => `\n[… ${omitted} characters omitted …]\n`,
    }) ?? reminder
  );
}

/** digitorn's truncate: the recent split (digitorn counts messages: keep_recent 10), dropped, with a reminder. */
export function planDrop(
  input: LayerInput,
  splitOptions: RecentSplitOptions & EditOptions = {},
  reminderOptions: ContextReminderOptions = {},
): DropEdit | undefined {
  const split = planRecentSplit(input, splitOptions);
  if (!split) return undefined;
  const reminder = buildContextReminder(split.older, split.recent, input.view.summary, {
    previousReminder: input.view.reminder,
    ...reminderOptions,
  });
  return dropEditForCut(input, split, {
    reminder,
    layer: splitOptions.layer ?? 'drop',
    reason: splitOptions.reason ?? 'context_pressure',
  });
}

interface ToolUse {
  call: string;
  failed: boolean;
  headline: string;
}

function toolActivity(messages: readonly Message[], maxChars: number): ToolUse[] {
  const calls = callsByResultIndex([...messages]);
  const uses: ToolUse[] = [];
  messages.forEach((message, index) => {
    const result = message.role === 'tool' ? toolResultOf(message) : undefined;
    if (!result) return;
    const call = calls.get(index)?.part;
    uses.push({
      call: describeCall(toolNameOf(result, call), call, Math.floor(maxChars / 2)),
      failed: isErrorResult(result),
      headline: resultHeadline(result, maxChars),
    });
  });
  return uses;
}

function summaryIntent(summary: Summary | undefined): string | undefined {
  if (!summary) return undefined;
  for (const [section, items] of Object.entries(summary.sections)) {
    if (/intent|goal/i.test(section) && items.some((item) => item.trim())) return items.join(' ');
  }
  return undefined;
}

function reminderGoal(reminder: string | undefined): string | undefined {
  const line = reminder?.split('\n').find((text) => text.startsWith('Goal: '));
  return line ? line.slice('Goal: '.length) : undefined;
}

function firstRequest(messages: readonly Message[]): string | undefined {
  for (const message of messages) {
    const text = textOf(message).trim();
    if (text) return text;
  }
  return undefined;
}
