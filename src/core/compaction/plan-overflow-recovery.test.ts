import { describe, expect, it } from 'vitest';
import { COWAGENT_POLICY, DEFAULT_POLICY, getPreset, type PRESET_NAMES } from '../policy/presets/index.ts';
import {
  MAX_WINDOW_ADOPTIONS,
  type OverflowSituation,
  planOverflowRecovery,
} from './plan-overflow-recovery.ts';

describe('planOverflowRecovery', () => {
  const emergency = { ...DEFAULT_POLICY.emergency, enabled: true, maxRetries: 1, resetWhenStillOver: true };
  const nth = (attempt: number, more: Partial<OverflowSituation> = {}): OverflowSituation => ({
    attempt,
    namedLimit: undefined,
    preparedWindow: 32_000,
    windowsAdopted: 0,
    ...more,
  });

  it('retries run the sequence (reset only if it changed nothing); the next overflow resets; then the error stands', () => {
    expect(planOverflowRecovery(emergency, nth(1))).toMatchObject({
      kind: 'recover',
      runSequence: true,
      reset: 'if-unchanged',
      mayRetry: true,
    });
    expect(planOverflowRecovery(emergency, nth(2))).toMatchObject({
      runSequence: false,
      reset: 'now',
      mayRetry: true,
    });
    expect(planOverflowRecovery(emergency, nth(3))).toMatchObject({
      runSequence: false,
      reset: 'never',
      mayRetry: false,
    });
  });

  it('without the emergency path nothing is tried', () => {
    expect(planOverflowRecovery({ ...emergency, enabled: false }, nth(1))).toMatchObject({
      runSequence: false,
      reset: 'never',
      mayRetry: false,
    });
  });

  it('each preset plans its own first overflow, and the one at which the error stands', () => {
    const standsAt = (name: (typeof PRESET_NAMES)[number]) => {
      let attempt = 1;
      while (attempt < 10) {
        const plan = planOverflowRecovery(getPreset(name).emergency, nth(attempt));
        if (plan.kind === 'recover' && !plan.mayRetry) return attempt;
        attempt++;
      }
      return attempt;
    };
    const first = (name: (typeof PRESET_NAMES)[number]) =>
      planOverflowRecovery(getPreset(name).emergency, nth(1));
    // default: drop to fit and retry once, then reset to the last turn and retry, then the error.
    expect(first('default')).toMatchObject({ runSequence: true, reset: 'if-unchanged', mayRetry: true });
    expect(standsAt('default')).toBe(3);
    // cowagent: summarize to memory and trim, then "the entire conversation context is cleared".
    expect(first('cowagent')).toMatchObject({ runSequence: true, mayRetry: true });
    expect(planOverflowRecovery(COWAGENT_POLICY.emergency, nth(2))).toMatchObject({
      reset: 'now',
      resetScope: 'all',
    });
    // tiancai: "compacts and retries once (maxCompactionRecoveries = 1)"; digitorn likewise, truncating.
    expect(first('tiancai')).toMatchObject({ runSequence: true, reset: 'never', mayRetry: true });
    expect(standsAt('tiancai')).toBe(2);
    expect(standsAt('digitorn')).toBe(2);
    // picoclaw: its loop retries twice, dropping the oldest turns each time.
    expect(first('picoclaw')).toMatchObject({ runSequence: true, mayRetry: true });
    expect(standsAt('picoclaw')).toBe(3);
    // deepagents describes no overflow path: the error stands (a window the error names is still adopted).
    expect(first('deepagents')).toMatchObject({ runSequence: false, mayRetry: false });
    expect(
      planOverflowRecovery(getPreset('deepagents').emergency, nth(1, { namedLimit: 8_192 })),
    ).toMatchObject({ kind: 'adopt-window' });
  });

  it('a limit named below the prepared window is adopted, a bounded number of times', () => {
    expect(planOverflowRecovery(emergency, nth(1, { namedLimit: 8_192 }))).toEqual({
      kind: 'adopt-window',
      contextWindow: 8_192,
    });
    // The same window named again: the window was right, the request too large for it.
    expect(planOverflowRecovery(emergency, nth(1, { namedLimit: 32_000 }))).toMatchObject({
      kind: 'recover',
    });
    expect(
      planOverflowRecovery(emergency, nth(1, { namedLimit: 4_096, windowsAdopted: MAX_WINDOW_ADOPTIONS })),
    ).toMatchObject({ kind: 'recover' });
  });
});
