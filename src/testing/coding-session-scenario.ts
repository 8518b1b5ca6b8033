/**
 * The acceptance run of `ctxkit chat` (issue 15): a scripted 60-turn coding session with large tool
 * outputs (big file reads, build logs, test runs with progress bars) against a 16k-window model on the
 * fake provider server, driven through the real CLI in child processes: killed mid-way and resumed with
 * `--session`, one overflow forced (recovered with one retry), and at the end a `/compact` whose summary
 * must still name every file the session touched and every plan item still open.
 *
 * Used by chat-acceptance.test.ts (which asserts) and bench/chat-acceptance.ts (which prints figures).
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BIN } from '../cli/testing/run-ctxkit.ts';
import { createExactCounter } from '../core/tokens/exact-counter.ts';
import { openEmbeddedStores } from '../store/open-embedded-stores.ts';
import { type FakeProviderServer, startFakeProviderServer } from './fake-provider-server.ts';
import { type CodingTurn, type ScriptedModelFigures, scriptedCodingModel } from './scripted-coding-model.ts';

export const SCENARIO_WINDOW = 16_000;
export const SCENARIO_MODEL = 'local-coder-16k';
export const SCENARIO_TURNS = 60;
/** The turn the first process is killed in (SIGKILL, while the turn runs). */
export const SCENARIO_KILL_TURN = 30;
/** The turn whose first request the server refuses as an overflow once. */
export const SCENARIO_OVERFLOW_TURN = 44;
export const SCENARIO_SESSION = 'acceptance';

export interface ScenarioFigures {
  model: ScriptedModelFigures;
  turns: number;
  toolCalls: number;
  /** Characters of tool output the agent produced over the session. */
  toolOutputChars: number;
  filesTouched: string[];
  openPlanItems: string[];
  killedInTurn: number;
  overflowsRecovered: number;
  finalSummary: string | undefined;
  missingFiles: string[];
  missingPlanItems: string[];
  logMessages: number;
  edits: number;
  editsByLayer: Record<string, number>;
  stdout: string;
}

const MODULES = 12;

function moduleSource(index: number): string {
  const lines = [
    `// src/module${index}.ts: generated module ${index}`,
    `export const MODULE_${index} = ${index};`,
  ];
  for (let line = 0; line < 400; line++)
    lines.push(
      `export function handler${index}_${line}(input: number): number { return input * ${line} + ${index}; }`,
    );
  return `${lines.join('\n')}\n`;
}

const BUILD_SCRIPT = `#!/bin/sh
# A build log: 1,500 lines of compiler output with a progress bar redrawn in place.
i=0
while [ $i -lt 1500 ]; do
  printf 'compiling src/module%d.ts [%d/1500] ok\\n' $((i % ${MODULES})) $i
  printf '\\r[%-20s] %d%%' '####' $((i * 100 / 1500))
  i=$((i + 1))
done
printf '\\nbuild finished: 0 errors, 3 warnings\\n'
`;

const TEST_SCRIPT = `#!/bin/sh
# A test run with a progress bar and two failures.
i=0
while [ $i -lt 600 ]; do
  printf '\\r%d/600 tests ' $i
  printf 'PASS test/module%d.test.ts > case %d\\n' $((i % ${MODULES})) $i
  i=$((i + 1))
done
printf 'FAIL test/module3.test.ts > parses negative numbers\\n  Expected: -4\\n  Received: 4\\n'
printf 'FAIL test/module7.test.ts > handles empty input\\n  TypeError: Cannot read properties of undefined\\n'
printf 'Tests: 2 failed, 598 passed, 600 total\\n'
exit 1
`;

/** The workspace the agent works in: modules, a build and a test script, a plan file. */
export async function writeScenarioWorkspace(root: string): Promise<void> {
  await mkdir(join(root, 'src'), { recursive: true });
  await mkdir(join(root, 'scripts'), { recursive: true });
  for (let index = 0; index < MODULES; index++)
    await writeFile(join(root, `src/module${index}.ts`), moduleSource(index));
  await writeFile(join(root, 'scripts/build.sh'), BUILD_SCRIPT);
  await writeFile(join(root, 'scripts/test.sh'), TEST_SCRIPT);
  await chmod(join(root, 'scripts/build.sh'), 0o755);
  await chmod(join(root, 'scripts/test.sh'), 0o755);
}

interface ScriptedSession {
  turns: CodingTurn[];
  userMessages: string[];
  filesTouched: Set<string>;
  openPlanItems: string[];
}

/** The 60 turns: reads, builds, test runs, searches, edits, and plan items set and ticked off. */
export function scenarioScript(): ScriptedSession {
  const turns: CodingTurn[] = [];
  const userMessages: string[] = [];
  const filesTouched = new Set<string>();
  const plan = new Map<string, boolean>();
  for (let turn = 0; turn < SCENARIO_TURNS; turn++) {
    const module = `src/module${turn % MODULES}.ts`;
    let message = `[turn ${turn}] `;
    // Plans are the agent's to write, as agents do: a checkbox list in its answer.
    let answerPlan = '';
    let steps: CodingTurn['steps'];
    switch (turn % 6) {
      case 0: {
        const item = `refactor ${module} to the new handler API (turn ${turn})`;
        plan.set(item, false);
        answerPlan = `Plan:\n- [ ] ${item}`;
        message += `Read ${module} and plan the refactor.`;
        steps = [[{ name: 'read_file', args: { path: module } }]];
        filesTouched.add(module);
        break;
      }
      case 1:
        message += 'Run the build and tell me if it is clean.';
        steps = [[{ name: 'run_command', args: { command: 'sh scripts/build.sh' } }]];
        filesTouched.add('scripts/build.sh');
        break;
      case 2:
        message += 'Run the tests.';
        steps = [[{ name: 'run_command', args: { command: 'sh scripts/test.sh' } }]];
        filesTouched.add('scripts/test.sh');
        break;
      case 3:
        message += `Where is handler${turn % MODULES}_7 used?`;
        steps = [[{ name: 'search_files', args: { query: `handler${turn % MODULES}_7`, path: 'src' } }]];
        break;
      case 4: {
        const path = `src/notes/turn${turn}.md`;
        message += `Write down what we learned in ${path}.`;
        steps = [
          [
            {
              name: 'write_file',
              args: {
                path,
                content: `# Turn ${turn}\nThe build is clean; module3 and module7 tests fail.\n`,
              },
            },
          ],
        ];
        filesTouched.add(path);
        break;
      }
      default: {
        // Every other refactor is finished and ticked off; the rest stay open.
        const open = [...plan].filter(([, done]) => !done).map(([item]) => item);
        const finished = turn % 12 === 5 ? open[0] : undefined;
        message += finished
          ? `Is "${finished}" finished?`
          : `Edit ${module}: rename MODULE_${turn % MODULES}.`;
        if (finished) {
          plan.set(finished, true);
          answerPlan = `Plan:\n- [x] ${finished}`;
        }
        steps = finished
          ? []
          : [
              [
                {
                  name: 'edit_file',
                  args: {
                    path: module,
                    old: `export const MODULE_${turn % MODULES} =`,
                    new: `export const MODULE_${turn % MODULES}_V2 =`,
                  },
                },
              ],
            ];
        if (!finished) filesTouched.add(module);
      }
    }
    turns.push({ steps, answer: `Turn ${turn} done.${answerPlan ? `\n${answerPlan}` : ''}` });
    userMessages.push(message);
  }
  return {
    turns,
    userMessages,
    filesTouched,
    openPlanItems: [...plan].filter(([, done]) => !done).map(([item]) => item),
  };
}

function startChat(
  server: FakeProviderServer,
  root: string,
  dataDir: string,
): ChildProcessWithoutNullStreams {
  return spawn(
    process.execPath,
    [
      BIN,
      'chat',
      '--base-url',
      server.openAIBaseUrl,
      '--model',
      SCENARIO_MODEL,
      '--session',
      SCENARIO_SESSION,
      '--data',
      dataDir,
      '--cwd',
      root,
      '--allow-write',
      '--allow-commands',
      '--yes',
    ],
    { cwd: root, env: { PATH: process.env.PATH ?? '', HOME: root, NO_COLOR: '1', CTXKIT_CONFIG: '' } },
  );
}

/** Sends lines one at a time, each once the previous turn's answer (or command output) has printed. */
async function drive(
  child: ChildProcessWithoutNullStreams,
  lines: { text: string; done: RegExp }[],
  output: { text: string },
  onProgress: (line: number) => void,
  stopAt?: { line: number; when: RegExp },
): Promise<void> {
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  child.stdout.on('data', (chunk: Buffer) => {
    output.text += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output.text += chunk.toString('utf8');
  });
  const waitFor = async (pattern: RegExp, from: number) => {
    for (;;) {
      if (pattern.test(output.text.slice(from))) return;
      if (child.exitCode !== null) throw new Error(`ctxkit chat exited early:\n${output.text.slice(-2000)}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  for (const [index, line] of lines.entries()) {
    const from = output.text.length;
    child.stdin.write(`${line.text}\n`);
    if (stopAt && index === stopAt.line) {
      await waitFor(stopAt.when, from);
      child.kill('SIGKILL');
      await exited;
      return;
    }
    await waitFor(line.done, from);
    onProgress(index);
  }
  child.stdin.end();
  await exited;
}

export async function runCodingSessionScenario(options: {
  root: string;
  onProgress?: (turn: number) => void;
}): Promise<ScenarioFigures> {
  const { root } = options;
  const dataDir = join(root, '.ctxkit');
  await writeScenarioWorkspace(root);
  const script = scenarioScript();
  const counter = createExactCounter('o200k');
  const model = scriptedCodingModel({
    turns: script.turns,
    window: SCENARIO_WINDOW,
    counter,
    overflowOnTurns: [SCENARIO_OVERFLOW_TURN],
  });
  const server = await startFakeProviderServer({
    servedWindows: { vllmModels: [{ id: SCENARIO_MODEL, maxModelLen: SCENARIO_WINDOW }] },
    fallback: model.reply,
  });
  const output = { text: '' };
  const progress = options.onProgress ?? (() => {});
  try {
    const lines = script.userMessages.map((text, turn) => ({
      text,
      done: new RegExp(`Turn ${turn} done\\.`),
    }));
    // First process: turns 0…29, then killed while turn 30 runs (its tool call has printed).
    await drive(startChat(server, root, dataDir), lines.slice(0, SCENARIO_KILL_TURN + 1), output, progress, {
      line: SCENARIO_KILL_TURN,
      when: /⚙ /,
    });
    // Second process: resumes the session, turn 30 again (the person retypes it), on to the end, then /compact.
    await drive(
      startChat(server, root, dataDir),
      [
        ...lines.slice(SCENARIO_KILL_TURN),
        { text: '/compact', done: /^(compacted|nothing to compact yet)$/m },
      ],
      output,
      (index) => progress(SCENARIO_KILL_TURN + index),
    );
  } finally {
    await server.close();
  }
  const stores = await openEmbeddedStores({ dataDir });
  try {
    const stored = await stores.store.load(SCENARIO_SESSION);
    const edits = stored?.edits ?? [];
    const summaries = edits.filter((edit) => edit.type === 'summarize');
    const finalSummary = summaries.at(-1)?.type === 'summarize' ? summaries.at(-1)?.summary.text : undefined;
    const editsByLayer: Record<string, number> = {};
    for (const edit of edits) editsByLayer[edit.layer] = (editsByLayer[edit.layer] ?? 0) + 1;
    const parts = (stored?.log ?? []).flatMap((message) => message.parts);
    const filesTouched = [...script.filesTouched].sort();
    return {
      model: model.figures,
      turns: SCENARIO_TURNS,
      toolCalls: parts.filter((part) => part.type === 'tool-call').length,
      toolOutputChars: parts.reduce(
        (sum, part) => sum + (part.type === 'tool-result' ? part.content.length : 0),
        0,
      ),
      filesTouched,
      openPlanItems: script.openPlanItems,
      killedInTurn: SCENARIO_KILL_TURN,
      overflowsRecovered: (output.text.match(/ctxkit compacted it and sent it again/g) ?? []).length,
      finalSummary,
      missingFiles: filesTouched.filter((file) => !finalSummary?.includes(file)),
      missingPlanItems: script.openPlanItems.filter((item) => !finalSummary?.includes(item)),
      logMessages: stored?.log.length ?? 0,
      edits: edits.length,
      editsByLayer,
      stdout: output.text,
    };
  } finally {
    await stores.close();
  }
}
