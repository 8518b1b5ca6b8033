import { describe, expect, it } from 'vitest';
import { stoppedForContextWindow } from './stop-reasons.ts';

describe('stoppedForContextWindow', () => {
  it('is true for the stop reasons that say the window was full, in any spelling', () => {
    for (const reason of [
      'model_context_window_exceeded',
      'context_window_exceeded',
      'Model-Context-Window-Exceeded',
      ' context window exceeded ',
    ])
      expect(stoppedForContextWindow(reason), reason).toBe(true);
  });

  it('is false for the output cap and every ordinary stop', () => {
    for (const reason of [
      'length',
      'max_tokens',
      'end_turn',
      'stop',
      'tool_use',
      'tool_calls',
      'refusal',
      '',
      'unknown',
    ])
      expect(stoppedForContextWindow(reason), reason).toBe(false);
    expect(stoppedForContextWindow(undefined)).toBe(false);
    expect(stoppedForContextWindow(null)).toBe(false);
  });
});
