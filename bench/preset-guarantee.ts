/**
 * "A request that cannot fit is never sent", for every preset: every corpus session replayed through
 * every preset at several windows, each request counted independently with exact o200k (the scorer the
 * peers bench uses), with the output reserve beside it. Prints, per preset and window, the requests over
 * the window (a refused request counts as one: the agent could not have made that call) and the
 * orphaned tool calls or results. Both must be 0.
 *
 *   npm run bench:guarantee
 *   npm run bench:guarantee -- --presets digitorn,tiancai --windows 16000 --sessions aider --model none
 *
 * Options: --presets (comma list, default all), --windows (default 16000,32000,128000), --max-output
 * (default 4096), --sessions (substring filter on file names), --model (default gpt-4o, whose tokenizer
 * is o200k; `none` leaves the engine without a known tokenizer), --final-guard (on | off: off replays the
 * seeds' own estimates alone, what the guard is measured against), --json FILE (writes the table and
 * every over-window request).
 */
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { Transcript } from '../src/core/message.ts';
import { PRESET_NAMES, PRESETS, type PresetName } from '../src/core/policy/presets/index.ts';
import { createExactCounter } from '../src/core/tokens/exact-counter.ts';
import type { ToolDefinition } from '../src/core/tool-definition.ts';
import { findPairingViolations } from '../src/core/view/tool-pairing-repair.ts';
import { RequestMeasurer } from '../src/replay/measure-request.ts';
import { replayWithCtxkit } from '../src/replay/replay-with-ctxkit.ts';
import { corpusFiles, loadCorpusSession } from '../src/testing/corpus.ts';
import { parseFlags } from './parse-flags.ts';

export interface GuaranteeCell {
  preset: PresetName;
  window: number;
  calls: number;
  overWindow: number;
  refused: number;
  orphans: number;
  /** Sessions with at least one over-window request or orphan. */
  failingSessions: number;
  /** Calls the final guard had to fit (the preset's own estimate let them past the window). */
  guarded: number;
  /** Largest excess over the usable window, in tokens (0 when none). */
  worstExcess: number;
  seconds: number;
}

export interface GuaranteeOptions {
  presets: readonly PresetName[];
  windows: readonly number[];
  maxOutputTokens: number;
  model: string | undefined;
  sessions: readonly string[];
  /** `false` replays the presets with `budget.finalGuard` off: the seeds' own estimates alone. */
  finalGuard?: boolean;
  onProgress?: (line: string) => void;
}

/** The tools a recorded session calls, each with an any-object schema (transcripts do not record them). */
export function recordedTools(transcript: Transcript): ToolDefinition[] {
  const names = new Set<string>();
  for (const message of transcript.messages)
    for (const part of message.parts) if (part.type === 'tool-call') names.add(part.name);
  return [...names].map((name) => ({
    name,
    description: `The session's "${name}" tool.`,
    parameters: { type: 'object', properties: {}, additionalProperties: true },
  }));
}

/** Replays and scores every (preset, window) over the sessions; one cell each. */
export async function measureGuarantee(options: GuaranteeOptions): Promise<GuaranteeCell[]> {
  const measurer = new RequestMeasurer(createExactCounter('o200k'));
  const transcripts = options.sessions.map((name) => ({ name, transcript: loadCorpusSession(name) }));
  const cells: GuaranteeCell[] = [];
  for (const window of options.windows) {
    for (const preset of options.presets) {
      const started = performance.now();
      const cell: GuaranteeCell = {
        preset,
        window,
        calls: 0,
        overWindow: 0,
        refused: 0,
        orphans: 0,
        failingSessions: 0,
        guarded: 0,
        worstExcess: 0,
        seconds: 0,
      };
      for (const [index, { name, transcript }] of transcripts.entries()) {
        options.onProgress?.(`${preset} @ ${window}: ${index + 1}/${transcripts.length} ${name}`);
        const policy = PRESETS[preset];
        const guarded =
          options.finalGuard === false
            ? { ...policy, budget: { ...policy.budget, finalGuard: false } }
            : policy;
        const replay = await replayWithCtxkit(transcript, guarded, {
          contextWindow: window,
          maxOutputTokens: options.maxOutputTokens,
          tools: recordedTools(transcript),
          ...(options.model !== undefined ? { model: options.model } : {}),
        });
        let failing = false;
        for (const request of replay.requests) {
          cell.calls++;
          if ((request.guardRounds ?? 0) > 0) cell.guarded++;
          if (request.error !== undefined) {
            cell.refused++;
            cell.overWindow++;
            failing = true;
            continue;
          }
          const total = measurer.measure(request).total;
          const excess = total + request.maxOutputTokens - window;
          if (excess > 0) {
            cell.overWindow++;
            cell.worstExcess = Math.max(cell.worstExcess, excess);
            failing = true;
          }
          const orphans = findPairingViolations(request.messages).length;
          cell.orphans += orphans;
          if (orphans > 0) failing = true;
        }
        if (failing) cell.failingSessions++;
      }
      cell.seconds = (performance.now() - started) / 1000;
      cells.push(cell);
    }
  }
  return cells;
}

export function renderGuaranteeTable(cells: readonly GuaranteeCell[]): string {
  const header = [
    'preset',
    'window',
    'calls',
    'over window',
    '(refused)',
    'orphans',
    'failing sessions',
    'worst excess',
    'guard fitted',
    'seconds',
  ];
  const rows = cells.map((cell) => [
    cell.preset,
    `${Math.round(cell.window / 1000)}k`,
    String(cell.calls),
    String(cell.overWindow),
    String(cell.refused),
    String(cell.orphans),
    String(cell.failingSessions),
    String(cell.worstExcess),
    String(cell.guarded),
    cell.seconds.toFixed(1),
  ]);
  const widths = header.map((cell, column) =>
    Math.max(cell.length, ...rows.map((row) => row[column]?.length ?? 0)),
  );
  const line = (row: string[]) =>
    `| ${row.map((cell, column) => (column < 2 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join(' | ')} |`;
  const rule = `|${widths.map((width, column) => (column < 2 ? '-'.repeat(width + 2) : `${'-'.repeat(width + 1)}:`)).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

async function main(): Promise<void> {
  const args = parseFlags(process.argv.slice(2));
  const presets = (args.get('presets')?.split(',') ?? [...PRESET_NAMES]).filter((name): name is PresetName =>
    (PRESET_NAMES as readonly string[]).includes(name),
  );
  const windows = (args.get('windows')?.split(',').map(Number) ?? [16_000, 32_000, 128_000]).filter(
    (window) => window > 0,
  );
  const maxOutputTokens = Number(args.get('max-output') ?? 4_096);
  const modelArg = args.get('model') ?? 'gpt-4o';
  const model = modelArg === 'none' ? undefined : modelArg;
  const guardArg = args.get('final-guard') ?? 'on';
  if (guardArg !== 'on' && guardArg !== 'off') throw new Error(`--final-guard: on or off, got "${guardArg}"`);
  const finalGuard = guardArg === 'on';
  const filter = args.get('sessions');
  const sessions = corpusFiles().filter((file) => !filter || file.includes(filter));
  process.stderr.write(
    `${presets.length} presets × ${sessions.length} sessions × windows ${windows.join(', ')}; model ${model ?? 'none'}; scored with exact o200k, ${maxOutputTokens} output reserved\n`,
  );
  const started = performance.now();
  const cells = await measureGuarantee({
    presets,
    windows,
    maxOutputTokens,
    model,
    sessions,
    finalGuard,
    onProgress: (line) => process.stderr.write(`\r\x1b[K${line}`),
  });
  process.stderr.write(`\r\x1b[Kdone in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  console.log(
    `Over-window requests and orphans per preset — ${sessions.length} corpus sessions, model ${model ?? 'none'}, final guard ${guardArg}, exact o200k, ${maxOutputTokens} output reserved`,
  );
  console.log(renderGuaranteeTable(cells));
  const out = args.get('json');
  if (out)
    writeFileSync(out, `${JSON.stringify({ model: model ?? null, maxOutputTokens, cells }, null, 2)}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
