import { describe, expect, it } from 'vitest';
import { renderTerminal, renderTerminalWithin } from './render-terminal.ts';
import { renderToolOutput } from './render-tool-output.ts';
import { stripTerminalControls } from './strip-terminal-controls.ts';
import { TERMINAL_WORK_ALLOWANCE, terminalWorkBudget } from './terminal-work-budget.ts';

const ESC = '\x1b';
const options = { renderTerminal: true, renderMaxChars: Number.POSITIVE_INFINITY };

describe('the emulator work budget', () => {
  it('leaves ordinary terminal output to the emulator, as before', async () => {
    const frames = Array.from({ length: 2000 }, (_, i) => `\r${ESC}[K${ESC}[32m${i}%${ESC}[0m`).join('');
    const raw = `start\n${frames}\n${ESC}[2J${ESC}[Hdone\nx${ESC}[5bend\n`;
    const rendered = await renderToolOutput(raw, options);
    expect(rendered.mode).toBe('terminal');
    expect(rendered.text).toBe(await renderTerminalWithin(raw, Number.POSITIVE_INFINITY));
    expect(rendered.text).toBe('start\n1999%\ndone\nxxxxxxend\n');
  });

  it('falls back to stripping when repeating a character would print far more than the input', async () => {
    const raw = `x${ESC}[2147483647b\n`;
    expect(await renderTerminalWithin(raw)).toBeUndefined();
    expect(await renderToolOutput(raw, options)).toEqual({ text: stripTerminalControls(raw), mode: 'strip' });
    expect(await renderTerminal(raw)).toBe('x\n');
  });

  it('falls back to stripping when scrolling and erasing cost more than the input allows', async () => {
    const line = 'y'.repeat(999);
    for (const sequence of [
      `${ESC}[99S`,
      `${ESC}[99T`,
      `${ESC}[99L`,
      `${ESC}[99M`,
      `${ESC}[2J`,
      `${ESC}#8`,
    ]) {
      const unit = `x${sequence}`;
      const raw = `${line}\n${unit.repeat(Math.ceil(TERMINAL_WORK_ALLOWANCE / 99_000) + 10)}`;
      expect(terminalWorkBudget(raw.length)).toBeLessThan(raw.length * 99_000);
      expect((await renderToolOutput(raw, options)).mode, JSON.stringify(sequence)).toBe('strip');
    }
  });

  it('renders the same costly sequences when few, within the allowance', async () => {
    const raw = `a\nb${ESC}[1S${ESC}[1Tc\n`;
    expect((await renderToolOutput(raw, options)).mode).toBe('terminal');
  });
});
