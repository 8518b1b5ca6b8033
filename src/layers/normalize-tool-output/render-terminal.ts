import type { IBuffer, IBufferCell, IBufferLine, Terminal as TerminalType } from '@xterm/headless';
import xterm from '@xterm/headless';
import { keepPrintedOutput } from './keep-printed-output.ts';
import { stripTerminalControls } from './strip-terminal-controls.ts';
import { meterTerminalWork, terminalWorkBudget } from './terminal-work-budget.ts';

// @xterm/headless is CommonJS without named ESM exports: Node only exposes its default export.
const { Terminal } = xterm;

/** Viewport height: how far back cursor-up and absolute positioning can reach, as in a tall terminal. */
export const TERMINAL_ROWS = 100;
/** Columns are sized to the longest line (so `\r` rewrites whole lines), within these bounds. */
export const MIN_TERMINAL_COLS = 80;
export const MAX_TERMINAL_COLS = 1000;
/**
 * Input is fed in slices of this many UTF-16 units (xterm refuses more than 50 MB pending at once), and
 * the work meter is read between slices: what a slice can cost past an exhausted budget is bounded by its
 * line feeds, a row each.
 */
const WRITE_SLICE = 1 << 15;

/**
 * Renders terminal output with a real emulator (@xterm/headless) and reads it back as plain text:
 * `\r` progress frames collapse to their last state, cursor movement and erase sequences apply, colours
 * and other escape sequences disappear, wide characters keep their place.
 *
 * Async because xterm parses writes in time-sliced batches and only reports completion by callback.
 *
 * Memory stays constant whatever the input size: rows are collected the moment they scroll off the
 * viewport (`onScroll` fires synchronously for each), when nothing can change them any more — cursor
 * movement cannot reach the scrollback. So the scrollback only needs two rows (the one just scrolled off
 * and the one before it, to re-read untrimmed when a wrapped row continues it), and rows are recycled.
 * Lines longer than the columns wrap and are joined again through `isWrapped`.
 */
export async function renderTerminal(text: string): Promise<string> {
  return (await renderTerminalWithin(text)) ?? stripTerminalControls(text);
}

/**
 * `renderTerminal` within a work budget (`terminal-work-budget.ts`: a fixed allowance plus so many cells
 * per unit of input): undefined when the input would make the emulator do more, so a short input cannot
 * cost time or memory out of proportion to its length (scrolling the whole screen, repeating a character
 * 2^31 times).
 */
export async function renderTerminalWithin(
  text: string,
  budget = terminalWorkBudget(text.length),
): Promise<string | undefined> {
  const cols = terminalColumnsFor(text);
  const terminal = new Terminal({
    cols,
    rows: TERMINAL_ROWS,
    scrollback: 2,
    convertEol: true,
    scrollOnEraseInDisplay: true,
    logLevel: 'off',
    // The parser hooks in keep-printed-output.ts are "proposed" API in xterm's terms.
    allowProposedApi: true,
  });
  try {
    keepPrintedOutput(terminal);
    // Registered last, so it runs first and can swallow a costly sequence before anything acts on it.
    const meter = meterTerminalWork(terminal, budget);
    const lines = new LogicalLines(cols, terminal.buffer.active.getNullCell());
    terminal.onScroll(() => {
      // A row recycled by the emulator and read here.
      meter.charge(cols);
      if (meter.exhausted) return;
      const buffer = terminal.buffer.active;
      lines.addRow(buffer, buffer.baseY - 1);
    });
    for (let start = 0; start < text.length; ) {
      let end = Math.min(text.length, start + WRITE_SLICE);
      if (end < text.length && isHighSurrogateAt(text, end - 1)) end--;
      await write(terminal, text.slice(start, end));
      if (meter.exhausted) return undefined;
      start = end;
    }
    const buffer = terminal.buffer.active;
    for (let y = 0, last = lastShownRow(buffer); y <= last; y++) lines.addRow(buffer, buffer.baseY + y);
    return lines.finish();
  } finally {
    terminal.dispose();
  }
}

function write(terminal: TerminalType, data: string): Promise<void> {
  return new Promise((resolve) => terminal.write(data, resolve));
}

/** The viewport's last row worth reading: the cursor's, or a later one that has text on it. */
function lastShownRow(buffer: IBuffer): number {
  for (let y = TERMINAL_ROWS - 1; y > buffer.cursorY; y--) {
    if (buffer.getLine(buffer.baseY + y)?.translateToString(true)) return y;
  }
  return buffer.cursorY;
}

/** Rows joined back into the lines they were printed as. */
class LogicalLines {
  private readonly done: string[] = [];
  private parts: string[] = [];
  private readonly reader: RowReader;

  constructor(
    private readonly cols: number,
    cell: IBufferCell,
  ) {
    this.reader = new RowReader(cols, cell);
  }

  addRow(buffer: IBuffer, y: number): void {
    const row = buffer.getLine(y);
    if (!row) return;
    const text = this.reader.read(row, true, this.cols);
    const previous = buffer.getLine(y - 1);
    if (row.isWrapped && previous && this.parts.length > 0) {
      // The previous row ran on into this one, so its blank cells are real gaps: re-read it untrimmed,
      // except the filler cell xterm leaves when a wide character did not fit in the last column.
      const firstWide = row.getCell(0)?.getWidth() === 2;
      const filler = previous.getCell(this.cols - 1);
      const skipFiller = firstWide && filler?.getChars() === '' && filler.getWidth() === 1;
      this.parts[this.parts.length - 1] = this.reader.read(
        previous,
        false,
        skipFiller ? this.cols - 1 : this.cols,
      );
      this.parts.push(text);
      return;
    }
    this.flush();
    this.parts.push(text);
  }

  finish(): string {
    this.flush();
    return this.done.join('\n');
  }

  private flush(): void {
    if (this.parts.length === 0) return;
    this.done.push(this.parts.length === 1 ? (this.parts[0] ?? '') : this.parts.join(''));
    this.parts = [];
  }
}

/** Code points below this are never wide, combining or combined, so one cell is one UTF-16 unit. */
const SIMPLE_CELL_LIMIT = 0x300;

/**
 * Reads a row's text. `translateToString` builds its result one cell at a time with `+=`, and flattening
 * those ropes was half the cost of rendering; rows of simple cells (most output) are read into a reused
 * buffer of code units instead, anything else (wide, combining, astral) goes through `translateToString`.
 * Both treat an empty cell as a space and, when trimming, drop trailing empty cells but keep printed spaces.
 */
class RowReader {
  private readonly units: Uint16Array;

  constructor(
    cols: number,
    private readonly cell: IBufferCell,
  ) {
    this.units = new Uint16Array(cols);
  }

  read(row: IBufferLine, trimRight: boolean, end: number): string {
    const { cell, units } = this;
    let length = 0;
    let printed = 0;
    for (let x = 0; x < end; x++) {
      if (!row.getCell(x, cell)) break;
      const code = cell.getCode();
      if (code >= SIMPLE_CELL_LIMIT) return row.translateToString(trimRight, 0, end);
      if (code === 0) units[length++] = 32;
      else {
        units[length++] = code;
        printed = length;
      }
    }
    return String.fromCharCode.apply(
      null,
      units.subarray(0, trimRight ? printed : length) as unknown as number[],
    );
  }
}

/**
 * Wide enough for the longest run between line breaks and carriage returns (an upper bound on a line's
 * width: escape sequences count too), counting CJK-range units as two cells.
 */
export function terminalColumnsFor(text: string): number {
  let longest = 0;
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit === 10 || unit === 13) {
      if (run > longest) longest = run;
      run = 0;
    } else run += unit >= 0x1100 && (unit < 0xd800 || unit > 0xdfff) ? 2 : 1;
  }
  if (run > longest) longest = run;
  return Math.min(MAX_TERMINAL_COLS, Math.max(MIN_TERMINAL_COLS, longest + 1));
}

function isHighSurrogateAt(text: string, index: number): boolean {
  const unit = text.charCodeAt(index);
  return unit >= 0xd800 && unit <= 0xdbff;
}
