/**
 * The acceptance run of `ctxkit chat` (issue 15), with its figures: a scripted 60-turn coding session
 * (big file reads, build logs and test runs with progress bars, searches, edits) against a 16k-window
 * model on the local fake provider server, through the real CLI: killed mid-way and resumed, one
 * overflow forced, and a final `/compact` whose summary must name every file touched and every open
 * plan item. `npm run bench:chat-acceptance`; progress on stderr.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  runCodingSessionScenario,
  SCENARIO_TURNS,
  SCENARIO_WINDOW,
} from '../src/testing/coding-session-scenario.ts';

const root = await mkdtemp(join(tmpdir(), 'ctxkit-acceptance-'));
const started = Date.now();
try {
  const figures = await runCodingSessionScenario({
    root,
    onProgress: (turn) => process.stderr.write(`\rturn ${turn + 1}/${SCENARIO_TURNS}`),
  });
  process.stderr.write('\n');
  const { model } = figures;
  const inputs = [...model.inputs].sort((a, b) => a - b);
  const median = inputs[Math.floor(inputs.length / 2)] ?? 0;
  const rows: [string, string][] = [
    [
      'turns',
      `${figures.turns} (process killed with SIGKILL in turn ${figures.killedInTurn}, resumed with --session)`,
    ],
    ['model requests', `${model.requests} (${model.summaryRequests} of them summaries)`],
    ['tool calls', String(figures.toolCalls)],
    ['tool output produced', `${figures.toolOutputChars.toLocaleString('en-US')} characters`],
    ['window', `${SCENARIO_WINDOW.toLocaleString('en-US')} tokens`],
    ['requests over the window', String(model.overWindow)],
    [
      'largest request input',
      `${model.maxInputTokens.toLocaleString('en-US')} tokens (median ${median.toLocaleString('en-US')})`,
    ],
    [
      'forced overflows / recovered with one retry',
      `${model.forcedOverflows} / ${figures.overflowsRecovered}`,
    ],
    [
      'log messages / edits',
      `${figures.logMessages} / ${figures.edits} (${Object.entries(figures.editsByLayer)
        .map(([layer, count]) => `${layer} ${count}`)
        .join(', ')})`,
    ],
    [
      'files touched named in the final summary',
      `${figures.filesTouched.length - figures.missingFiles.length} of ${figures.filesTouched.length}${figures.missingFiles.length ? ` (missing: ${figures.missingFiles.join(', ')})` : ''}`,
    ],
    [
      'open plan items named in the final summary',
      `${figures.openPlanItems.length - figures.missingPlanItems.length} of ${figures.openPlanItems.length}${figures.missingPlanItems.length ? ` (missing: ${figures.missingPlanItems.join('; ')})` : ''}`,
    ],
    ['wall time', `${((Date.now() - started) / 1000).toFixed(1)} s`],
  ];
  const width = Math.max(...rows.map(([name]) => name.length));
  for (const [name, value] of rows) process.stdout.write(`${name.padEnd(width)}  ${value}\n`);
  if (process.argv.includes('--summary'))
    process.stdout.write(`\n${figures.finalSummary ?? '(no summary)'}\n`);
} finally {
  await rm(root, { recursive: true, force: true });
}
