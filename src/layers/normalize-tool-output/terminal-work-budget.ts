import type { Terminal } from '@xterm/headless';

/**
 * Cells the emulator may touch per UTF-16 unit of input, on top of writing the input itself. Ordinary
 * output (colours, progress bars, erase-line per frame) stays far below; hostile output does not:
 * `ESC[99S` (scroll 99 rows, each a fresh row of up to 1000 cells) is 100,000 cells for 5 units, and
 * `x ESC[999b` (repeat `x` 999 times) prints 999 cells for 7.
 */
export const TERMINAL_WORK_PER_UNIT = 24;
/** Cells any input may touch whatever its length, so short outputs are never judged by the ratio. */
export const TERMINAL_WORK_ALLOWANCE = 1 << 23;

/** What printing one cell costs, in cells filled (measured: 5 to 10 times as long, with the rows it fills scrolling away). */
const REP_CELL_COST = 16;

/** The work an input of `length` UTF-16 units may cost the emulator. */
export const terminalWorkBudget = (length: number): number =>
  TERMINAL_WORK_ALLOWANCE + TERMINAL_WORK_PER_UNIT * length;

export interface TerminalWorkMeter {
  /** Whether the input has cost more than its budget: its rendering is then not to be used. */
  readonly exhausted: boolean;
  /** Charges work done outside the parser's hooks (e.g. a row scrolled off and read). */
  charge(cells: number): void;
}

type Params = (number | number[])[];
const count = (params: Params, fallback = 1): number => {
  const first = params[0];
  const value = typeof first === 'number' ? first : first?.[0];
  return value === undefined || value === 0 ? fallback : value;
};

/**
 * Meters what the costly control sequences make the emulator do: each is charged what it touches
 * (rows × columns for scrolling, inserting or deleting lines, erasing the display and filling it; a row
 * for editing within a line; the repeated cells of REP) before it runs. Once the budget is spent, those
 * sequences are swallowed (so the rest of the input costs no more than its own length) and the meter
 * reports exhaustion: the caller then discards the emulator's output for the approximation
 * (`stripTerminalControls`). The hooks run before the emulator's own and never change what it does
 * while the budget lasts.
 */
export function meterTerminalWork(terminal: Terminal, budget: number): TerminalWorkMeter {
  let spent = 0;
  const meter = {
    get exhausted() {
      return spent > budget;
    },
    charge(cells: number) {
      spent += cells;
    },
  };
  const rows = () => terminal.rows;
  const cols = () => terminal.cols;
  /** Charges `cells` and swallows the sequence when that spends the budget. */
  const spend = (cells: number): boolean => {
    spent += cells;
    return spent > budget;
  };
  const { parser } = terminal;
  const screen = () => rows() * cols();
  // Scroll up/down, insert/delete lines: up to the screen's rows, each row rebuilt.
  for (const final of ['S', 'T', 'L', 'M']) {
    parser.registerCsiHandler({ final }, (params) => spend(Math.min(count(params), rows()) * cols()));
  }
  // Erase in display (and, with scrollOnEraseInDisplay, the screen scrolled away).
  parser.registerCsiHandler({ final: 'J' }, () => spend(screen()));
  parser.registerCsiHandler({ prefix: '?', final: 'J' }, () => spend(screen()));
  // Shift the screen left/right, insert/delete columns: every row.
  parser.registerCsiHandler({ intermediates: ' ', final: '@' }, () => spend(screen()));
  parser.registerCsiHandler({ intermediates: ' ', final: 'A' }, () => spend(screen()));
  parser.registerCsiHandler({ intermediates: "'", final: '}' }, () => spend(screen()));
  parser.registerCsiHandler({ intermediates: "'", final: '~' }, () => spend(screen()));
  // DECALN fills the screen with `E`.
  parser.registerEscHandler({ intermediates: '#', final: '8' }, () => spend(screen()));
  // Within one line: insert, delete, erase characters, erase in line.
  for (const final of ['@', 'P', 'X', 'K']) parser.registerCsiHandler({ final }, () => spend(cols()));
  parser.registerCsiHandler({ prefix: '?', final: 'K' }, () => spend(cols()));
  // REP prints the preceding character again, as many times as asked (xterm allows up to 2^31 - 1);
  // printing a cell costs the emulator several times what filling one does.
  parser.registerCsiHandler({ final: 'b' }, (params) => spend(REP_CELL_COST * count(params)));
  return meter;
}
