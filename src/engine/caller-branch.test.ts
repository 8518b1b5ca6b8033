import { describe, expect, it } from 'vitest';
import type { MessageInput } from '../core/message.ts';
import { assignStableIds } from '../core/stable-id.ts';
import { CallerBranch } from './caller-branch.ts';

const text = (value: string): MessageInput => ({ role: 'user', parts: [{ type: 'text', text: value }] });

/** Continues the branch with `messages`, recording them as the log would. */
function extend(branch: CallerBranch, messages: MessageInput[]): string[] {
  const ids = branch.continueContentIds(messages);
  for (const id of ids) branch.record(branch.seqs.length, id);
  return ids;
}

describe('CallerBranch.continueContentIds', () => {
  it('numbers as assignStableIds does over the whole branch, whatever the calls, after a truncate too', () => {
    const history = ['yes', 'no', 'yes', 'yes', 'ok', 'no', 'yes'].map(text);
    const whole = assignStableIds(history).map((message) => message.id);
    const branch = new CallerBranch();
    expect([...extend(branch, history.slice(0, 3)), ...extend(branch, history.slice(3))]).toEqual(whole);
    branch.truncate(2);
    expect(extend(branch, history.slice(2))).toEqual(whole.slice(2));
    // Ids not recorded (an append that failed) are given again.
    const again = new CallerBranch();
    extend(again, history.slice(0, 3));
    expect(again.continueContentIds(history.slice(3))).toEqual(whole.slice(3));
    expect(again.continueContentIds(history.slice(3))).toEqual(whole.slice(3));
  });

  it('numbers n alike messages in time in proportion to n', () => {
    // The n-th looked at the n - 1 taken before it: 4x the messages took 16x the time.
    const time = (count: number): number => {
      const branch = new CallerBranch();
      const started = performance.now();
      for (let at = 0; at < count; at += 500)
        extend(
          branch,
          Array.from({ length: 500 }, () => text('ok')),
        );
      return performance.now() - started;
    };
    time(1_000);
    const small = time(5_000);
    const large = time(20_000);
    expect(large / Math.max(small, 1)).toBeLessThan(8);
  });
});
