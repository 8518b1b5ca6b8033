/**
 * Worst-case tool output: inputs whose shape once made appending them super-linear (exact BPE merging
 * of one huge pre-tokenized piece was quadratic: 200k `-` took about 25 s, 1 MB of `x` minutes). Each
 * case is appended as a tool result to a session under the `default` preset with model gpt-4o (exact
 * o200k counter), then prepare() runs; the time of both, per MB of input, and the peak memory are
 * printed. Goal: at most 1 s per MB, whatever the shape. Terminal output once cost more than that too:
 * stripping escapes above `renderMaxChars` was quadratic in a line's length or a run of `\r`, and the
 * emulator did work out of proportion to the input (REP, scrolling a wide screen) until it got a budget.
 *
 *   npm run bench:worst-case
 *   npm run bench:worst-case -- --cases dashes-1mb,line-50mb --timeout 120
 *
 * Each case runs in a process of its own (this file, forked with `--case`), so its peak RSS is its own
 * (`resourceUsage().maxRSS`) and a case that runs away is stopped after `--timeout` seconds (default
 * 300) instead of holding up the others. The heap high-water is V8's total heap size sampled after
 * every step (append, prepare), the largest seen; peak RSS includes the input itself.
 */
import { fork } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { getHeapStatistics } from 'node:v8';
import type { MessageInput } from '../src/core/message.ts';
import { PRESETS } from '../src/core/policy/presets/index.ts';
import { createContextManager } from '../src/engine/context-manager.ts';
import { parseFlags } from './parse-flags.ts';
import { printTable } from './token-bench-support.ts';

/** Goal: appending and preparing cost at most this many seconds per MB of input. */
export const GOAL_SECONDS_PER_MB = 1;
const DEFAULT_TIMEOUT_SECONDS = 300;
const MB = 1024 * 1024;

/** Deterministic noise, so a random case is the same input on every run and every machine. */
function seededBytes(length: number, seed: number): Buffer {
  const bytes = Buffer.allocUnsafe(length);
  let state = seed >>> 0 || 1;
  for (let index = 0; index < length; index++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    bytes[index] = state & 0xff;
  }
  return bytes;
}

/** Base64 of `bytes` raw bytes, wrapped or not. */
const base64Of = (bytes: Buffer, width = 0): string => {
  const text = bytes.toString('base64');
  if (width <= 0) return text;
  const lines: string[] = [];
  for (let start = 0; start < text.length; start += width) lines.push(text.slice(start, start + width));
  return lines.join('\n');
};

const repeatTo = (unit: string, length: number): string =>
  unit.repeat(Math.ceil(length / unit.length)).slice(0, length);

interface WorstCase {
  name: string;
  what: string;
  make: () => string;
}

/** Every case is about 1 MB (UTF-16 units) unless its name says otherwise. */
const CASES: WorstCase[] = [
  { name: 'dashes-200k', what: '200,000 `-`, one line', make: () => '-'.repeat(200_000) },
  { name: 'dashes-1mb', what: '1 MB of `-`, one line', make: () => '-'.repeat(MB) },
  { name: 'x-1mb', what: '1 MB of `x`, one line', make: () => 'x'.repeat(MB) },
  { name: 'spaces-1mb', what: '1 MB of spaces, then `x`', make: () => `${' '.repeat(MB - 1)}x` },
  {
    name: 'base64-zeros-1mb',
    what: 'base64 of zeros, one line',
    make: () => base64Of(Buffer.alloc((MB * 3) / 4)),
  },
  {
    name: 'base64-zeros-wrapped',
    what: 'base64 of zeros, 76 columns',
    make: () => base64Of(Buffer.alloc((MB * 3) / 4), 76),
  },
  {
    name: 'base64-random-1mb',
    what: 'base64 of random bytes, one line',
    make: () => base64Of(seededBytes((MB * 3) / 4, 7)),
  },
  { name: 'hex-zeros-1mb', what: 'hex of zeros (`0` × 1 MB)', make: () => '0'.repeat(MB) },
  { name: 'cjk-1mb', what: 'one CJK character repeated', make: () => '的'.repeat(MB) },
  { name: 'combining-1mb', what: '`e` + combining accent, repeated', make: () => repeatTo('e\u0301', MB) },
  { name: 'emoji-1mb', what: 'one emoji repeated (astral)', make: () => repeatTo('🎉', MB) },
  {
    name: 'progress-1mb',
    what: '`\\r` progress frames, ANSI colours',
    make: () => repeatTo('\r\x1b[32m[#####     ]\x1b[0m 50% ', MB),
  },
  {
    name: 'repeat-1mb',
    what: '`x ESC[999b` (REP: x again 999 times)',
    make: () => repeatTo('x\x1b[999b', MB),
  },
  {
    name: 'scroll-1mb',
    what: 'a 999-column line, then `x ESC[99S`',
    make: () => `${'y'.repeat(999)}\n${repeatTo('x\x1b[99S', MB - 1000)}`,
  },
  { name: 'clear-1mb', what: '`x\\n ESC[2J` (clear screen)', make: () => repeatTo('x\n\x1b[2J', MB) },
  {
    name: 'esc-line-5mb',
    what: '`ESC[0m`, then 5 MB of `x` (stripped)',
    make: () => `\x1b[0m${'x'.repeat(5 * MB)}`,
  },
  { name: 'cr-run-5mb', what: '5 MB of `\\r` (stripped)', make: () => `\x1b[0m${'\r'.repeat(5 * MB)}` },
  { name: 'line-50mb', what: '50 MB single line of `-`', make: () => '-'.repeat(50 * MB) },
];

interface CaseReport {
  name: string;
  chars: number;
  appendSeconds: number;
  prepareSeconds: number;
  peakRssBytes: number;
  heapHighWaterBytes: number;
  spilled: boolean;
}

async function runCase(worstCase: WorstCase): Promise<CaseReport> {
  const content = worstCase.make();
  let heapHighWater = 0;
  const sample = () => {
    heapHighWater = Math.max(heapHighWater, getHeapStatistics().total_heap_size);
  };
  sample();
  const manager = createContextManager({ policy: { ...PRESETS.default, model: 'gpt-4o' } });
  const call: MessageInput = {
    role: 'assistant',
    parts: [{ type: 'tool-call', callId: 'c1', name: 'bash', args: '{"command":"cat out.txt"}' }],
  };
  await manager.append('bench', [
    { role: 'user', parts: [{ type: 'text', text: 'show me the output' }] },
    call,
  ]);
  const started = performance.now();
  const { events } = await manager.append('bench', [
    { role: 'tool', parts: [{ type: 'tool-result', callId: 'c1', name: 'bash', content, isError: false }] },
  ]);
  const appended = performance.now();
  sample();
  await manager.prepare('bench', {
    system: 'You are a coding agent.',
    model: 'gpt-4o',
    maxOutputTokens: 8_192,
  });
  const prepared = performance.now();
  sample();
  return {
    name: worstCase.name,
    chars: content.length,
    appendSeconds: (appended - started) / 1000,
    prepareSeconds: (prepared - appended) / 1000,
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
    heapHighWaterBytes: heapHighWater,
    spilled: events.some((event) => event.type === 'tool-output-spilled'),
  };
}

function runInOwnProcess(name: string, timeoutSeconds: number): Promise<CaseReport | 'timeout' | string> {
  return new Promise((done) => {
    const child = fork(fileURLToPath(import.meta.url), ['--case', name], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let report: CaseReport | undefined;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutSeconds * 1000);
    child.once('message', (message) => {
      report = message as CaseReport;
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      done(report ?? (timedOut ? 'timeout' : `exited with code ${code}`));
    });
  });
}

const mb = (bytes: number): string => `${(bytes / MB).toFixed(0)} MB`;

const args = parseFlags(process.argv.slice(2));
const only = args.get('case');
if (only !== undefined) {
  const worstCase = CASES.find((candidate) => candidate.name === only);
  if (!worstCase) throw new Error(`unknown case "${only}"`);
  process.send?.(await runCase(worstCase));
} else {
  const filter = args.get('cases')?.split(',');
  const timeoutSeconds = Number(args.get('timeout') ?? DEFAULT_TIMEOUT_SECONDS);
  const selected = CASES.filter((candidate) => !filter || filter.includes(candidate.name));
  const rows: string[][] = [];
  for (const [index, worstCase] of selected.entries()) {
    process.stderr.write(`  [${index + 1}/${selected.length}] ${worstCase.name}: ${worstCase.what} …\n`);
    const report = await runInOwnProcess(worstCase.name, timeoutSeconds);
    if (typeof report === 'string') {
      const note = report === 'timeout' ? `> ${timeoutSeconds} s (stopped)` : report;
      rows.push([worstCase.name, worstCase.what, '—', note, '—', '—', '—', '—', 'no']);
      continue;
    }
    const seconds = report.appendSeconds + report.prepareSeconds;
    const perMb = seconds / (report.chars / MB);
    rows.push([
      report.name,
      worstCase.what,
      (report.chars / MB).toFixed(2),
      report.appendSeconds.toFixed(3),
      report.prepareSeconds.toFixed(3),
      perMb.toFixed(3),
      mb(report.peakRssBytes),
      mb(report.heapHighWaterBytes),
      perMb <= GOAL_SECONDS_PER_MB ? 'yes' : 'NO',
    ]);
  }
  console.log(
    `Worst-case tool output, appended then prepared (default preset, gpt-4o, exact o200k). Goal: ≤ ${GOAL_SECONDS_PER_MB} s per MB.\n`,
  );
  printTable(
    ['case', 'input', 'MB', 'append s', 'prepare s', 's / MB', 'peak RSS', 'heap high-water', 'goal'],
    rows,
  );
}
