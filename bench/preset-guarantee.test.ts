import { describe, expect, it } from 'vitest';
import { PRESET_NAMES } from '../src/core/policy/presets/index.ts';
import { corpusFiles } from '../src/testing/corpus.ts';
import { measureGuarantee } from './preset-guarantee.ts';

/** The sessions with the densest tool output (code, JSON, logs) and the longest one. */
const HANDFUL = [
  'pi-mono__before',
  'ponyc-4593',
  'ponyc-4595',
  'openhands__basic',
  'ctf_rock',
  'aider__chat_2024-08-06',
];

describe('every preset keeps every request in the window (exact o200k, 4,096 reserved)', () => {
  it('a handful of corpus sessions, every preset, 16k / 32k / 128k: 0 over the window, 0 orphans', async () => {
    const sessions = corpusFiles().filter((file) => HANDFUL.some((part) => file.includes(part)));
    expect(sessions.length).toBe(HANDFUL.length);
    const cells = await measureGuarantee({
      presets: PRESET_NAMES,
      windows: [16_000, 32_000, 128_000],
      maxOutputTokens: 4_096,
      model: 'gpt-4o',
      sessions,
    });
    expect(cells).toHaveLength(PRESET_NAMES.length * 3);
    for (const cell of cells) {
      expect({
        preset: cell.preset,
        window: cell.window,
        over: cell.overWindow,
        orphans: cell.orphans,
      }).toEqual({
        preset: cell.preset,
        window: cell.window,
        over: 0,
        orphans: 0,
      });
    }
    // The guard had work to do: some seed's own estimate let a request past the window.
    expect(cells.some((cell) => cell.guarded > 0)).toBe(true);
  });
});
