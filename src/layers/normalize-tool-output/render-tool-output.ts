import { renderTerminalWithin } from './render-terminal.ts';
import { stripTerminalControls } from './strip-terminal-controls.ts';

/**
 * How an output was turned into plain text: `none` (nothing to do), `crlf` (only CRLF line ends, made
 * LF), `terminal` (the emulator), `strip` (the fast approximation: above `renderMaxChars`, or when the
 * input would cost the emulator more than its work budget).
 */
export type RenderMode = 'none' | 'crlf' | 'terminal' | 'strip';

export interface RenderedOutput {
  text: string;
  mode: RenderMode;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: ESC, CR and backspace are what make output terminal-shaped.
const TERMINAL_CONTROL = /[\x1b\r\b]/;
const LONE_CR = /\r(?!\n)/;

/**
 * Renders only output that needs it: ESC (escape sequences), `\r` (progress frames) or backspace
 * (overstrike). Plain output, the common case, is returned as is without touching the emulator.
 */
export async function renderToolOutput(
  text: string,
  options: { renderTerminal: boolean; renderMaxChars: number },
): Promise<RenderedOutput> {
  if (!options.renderTerminal || !TERMINAL_CONTROL.test(text)) return { text, mode: 'none' };
  if (!text.includes('\x1b') && !text.includes('\b') && !LONE_CR.test(text)) {
    return { text: text.replaceAll('\r\n', '\n'), mode: 'crlf' };
  }
  if (text.length > options.renderMaxChars) return { text: stripTerminalControls(text), mode: 'strip' };
  const rendered = await renderTerminalWithin(text);
  if (rendered === undefined) return { text: stripTerminalControls(text), mode: 'strip' };
  return { text: rendered, mode: 'terminal' };
}
