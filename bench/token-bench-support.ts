/**
 * Shared by the token benchmarks: reading the corpus (in place, never copied), percentiles, a progress
 * counter on stderr and plain-text tables on stdout.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCorpusJsonl } from '../src/adapters/corpus.ts';
import type { Transcript } from '../src/core/message.ts';

/** The corpus fixtures (`fixtures/corpus`), found from this file so any cwd works. */
export const CORPUS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'corpus');

export interface CorpusSession {
  file: string;
  transcript: Transcript;
}

export function corpusFiles(dir: string = CORPUS_DIR): string[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.jsonl'))
    .sort();
}

export function readCorpusSession(file: string, dir: string = CORPUS_DIR): CorpusSession {
  return { file, transcript: parseCorpusJsonl(readFileSync(join(dir, file), 'utf8'), file) };
}

export function readCorpus(dir: string = CORPUS_DIR): CorpusSession[] {
  const files = corpusFiles(dir);
  const progress = new Progress('reading corpus', files.length);
  const sessions = files.map((file) => {
    const session = readCorpusSession(file, dir);
    progress.tick();
    return session;
  });
  progress.done();
  return sessions;
}

/** Linear-interpolated percentile of unsorted values (p in [0, 1]); NaN when empty. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = p * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  const lowValue = sorted[low] ?? Number.NaN;
  const highValue = sorted[high] ?? Number.NaN;
  return lowValue + (highValue - lowValue) * (rank - low);
}

export const median = (values: readonly number[]): number => percentile(values, 0.5);

export const relativeError = (estimate: number, exact: number): number => Math.abs(estimate - exact) / exact;

export const percent = (value: number): string =>
  Number.isNaN(value) ? '—' : `${(value * 100).toFixed(2)} %`;

/** A counter on stderr, redrawn in place, so long runs show they are alive without cluttering stdout. */
export class Progress {
  #label: string;
  #total: number;
  #done = 0;
  #lastDraw = 0;
  #shown = -1;

  constructor(label: string, total: number) {
    this.#label = label;
    this.#total = total;
    this.#draw();
  }

  tick(by = 1): void {
    this.#done += by;
    const now = Date.now();
    if (now - this.#lastDraw >= 100 || this.#done === this.#total) this.#draw();
  }

  /** Moves the counter to `done` (for work that reports where it is, not how much it did). */
  set(done: number): void {
    this.tick(done - this.#done);
  }

  done(): void {
    if (this.#shown !== this.#done) this.#draw();
    process.stderr.write('\n');
  }

  #draw(): void {
    this.#lastDraw = Date.now();
    this.#shown = this.#done;
    process.stderr.write(`\r  ${this.#label}: ${this.#done}/${this.#total}`);
  }
}

/** Left-aligns the first column, right-aligns the rest. */
export function printTable(header: readonly string[], rows: readonly (readonly string[])[]): void {
  const widths = header.map((cell, column) =>
    Math.max(cell.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0),
      )
      .join('  ');
  console.log(line(header));
  console.log(widths.map((width) => '-'.repeat(width)).join('  '));
  for (const row of rows) console.log(line(row));
}
