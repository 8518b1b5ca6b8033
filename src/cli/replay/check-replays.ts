import { escapeForTerminal as safe } from '../../core/escape-for-terminal.ts';
import type { SessionReplay } from '../../replay/replay-types.ts';

/**
 * `ctxkit replay --check`: the two figures that must be 0, call by call. A call overflows when the
 * request it would have sent is over the window less the output reserve; it orphans when the request
 * holds a tool call without its result or a result without its call.
 */

/** At most this many failing calls are listed per session; the count says how many more. */
export const CHECK_FAILURES_LISTED = 20;

export interface CheckFailure {
  session: string;
  system: string;
  call: number;
  messageIndex: number;
  problem: 'overflow' | 'orphans';
  /** What went wrong, in words: `12,345 input tokens over the limit of 8,000`. */
  detail: string;
}

const number = (value: number) => Math.round(value).toLocaleString('en-US');

export function findCheckFailures(replays: readonly SessionReplay[]): CheckFailure[] {
  const failures: CheckFailure[] = [];
  for (const replay of replays) {
    const limit = Math.max(0, replay.contextWindow - replay.maxOutputTokens);
    for (const call of replay.calls) {
      const at = {
        session: replay.session,
        system: replay.system,
        call: call.call,
        messageIndex: call.messageIndex,
      };
      if (call.overflow) {
        failures.push({
          ...at,
          problem: 'overflow',
          detail: `overflows the window: ${number(call.inputTokens)} input tokens, limit ${number(limit)} (window ${number(replay.contextWindow)} − output reserve ${number(replay.maxOutputTokens)})`,
        });
      }
      if (call.orphans > 0) {
        failures.push({
          ...at,
          problem: 'orphans',
          detail: `${call.orphans} tool call(s) or result(s) sent without their pair`,
        });
      }
    }
  }
  return failures;
}

/** One line per failing call (session, policy, call, message), or one line saying all passed. */
export function renderCheckFailures(
  failures: readonly CheckFailure[],
  replays: readonly SessionReplay[],
): string {
  const calls = replays.reduce((total, replay) => total + replay.calls.length, 0);
  if (failures.length === 0) {
    return `check passed: ${number(calls)} calls in ${replays.length} replay(s), no overflow, no orphaned tool call`;
  }
  const lines: string[] = [];
  const bySession = new Map<string, CheckFailure[]>();
  for (const failure of failures) {
    const key = `${safe(failure.session)} · ${safe(failure.system)}`;
    bySession.set(key, [...(bySession.get(key) ?? []), failure]);
  }
  for (const [session, listed] of bySession) {
    for (const failure of listed.slice(0, CHECK_FAILURES_LISTED)) {
      lines.push(
        `check failed: ${session}: call ${failure.call} (message ${failure.messageIndex}) ${failure.detail}`,
      );
    }
    if (listed.length > CHECK_FAILURES_LISTED) {
      lines.push(`check failed: ${session}: … and ${listed.length - CHECK_FAILURES_LISTED} more`);
    }
  }
  const overflows = failures.filter((failure) => failure.problem === 'overflow').length;
  const orphans = failures.length - overflows;
  lines.push(
    `check failed: ${overflows} call(s) over the window, ${orphans} call(s) with orphaned tool calls, in ${bySession.size} of ${replays.length} replay(s)`,
  );
  return lines.join('\n');
}
