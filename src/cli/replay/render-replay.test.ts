import pc from 'picocolors';
import { describe, expect, it } from 'vitest';
import { PRESETS } from '../../core/policy/presets/index.ts';
import { pressureCell } from './render-replay.ts';

const colors = pc.createColors(true);
const YELLOW = '\u001b[33m';
const RED = '\u001b[31m';

describe('pressureCell', () => {
  it("colours a pressure by the policy's display levels: plain, yellow from warnAt, red from dangerAt (002: 70 %, 90 %)", () => {
    const { display } = PRESETS.deepagents;
    expect(display).toEqual({ warnAt: 0.7, dangerAt: 0.9 });
    expect(pressureCell(0.69, display, colors)).toBe('69.0%');
    expect(pressureCell(0.7, display, colors)).toContain(YELLOW);
    expect(pressureCell(0.89, display, colors)).toContain(YELLOW);
    const danger = pressureCell(0.9, display, colors);
    expect(danger).toContain(RED);
    expect(danger).not.toContain(YELLOW);
    expect(pressureCell(Number.POSITIVE_INFINITY, display, colors)).toContain('∞');
  });

  it('follows the levels a policy sets, not fixed figures', () => {
    const display = { warnAt: 0.5, dangerAt: 0.6 };
    expect(pressureCell(0.55, display, colors)).toContain(YELLOW);
    expect(pressureCell(0.65, display, colors)).toContain(RED);
    expect(pressureCell(0.85, { warnAt: 0.95, dangerAt: 0.99 }, colors)).toBe('85.0%');
  });
});
