import { readFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import pc from 'picocolors';
import { escapeForTerminal } from '../core/escape-for-terminal.ts';
import { describeError } from './describe-error.ts';
import { EXIT_BAD_INPUT, EXIT_CHECK_FAILED, EXIT_INTERNAL_ERROR, EXIT_OK } from './exit-codes.ts';
import { MAX_OUTPUT_ZERO_MEANS, WINDOW_ZERO_MEANS } from './policy-flags.ts';

export { EXIT_BAD_INPUT } from './exit-codes.ts';

/** The version in the package's own package.json. */
export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version?: unknown;
  };
  return typeof manifest.version === 'string' ? manifest.version : 'unknown';
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/**
 * The policy flags. `serve` takes the model from each request, so it has no `--model`, and its `--window`
 * is the window of models nobody else knows.
 */
function policyOptions(command: Command, perRequestModel = false): Command {
  // Hidden, not absent, for serve: its own error says why it takes no model.
  const model = new Option(
    '--model <name>',
    'the model whose window applies (e.g. gpt-4o, claude-sonnet-4-6)',
  );
  const withModel = command.addOption(perRequestModel ? model.hideHelp() : model);
  return withModel
    .option(
      '--policy <name|file>',
      'a preset (default, cowagent, tiancai, deepagents, digitorn, picoclaw) or a config file',
    )
    .option('--config <file>', 'a JSON or YAML config file (default: ./ctxkit.yaml if present)')
    .option('--agent <name>', "apply this agent's block of the config file (its agents; also CTXKIT_AGENT)")
    .option(
      '--window <tokens>',
      perRequestModel
        ? 'the window of a model neither the upstream nor the profile table knows'
        : `context window in tokens (0 or unset: ${WINDOW_ZERO_MEANS})`,
    )
    .option('--max-output <tokens>', `tokens reserved for the reply (0 or unset: ${MAX_OUTPUT_ZERO_MEANS})`)
    .option(
      '--set <key=value>',
      'set any policy value, e.g. --set summarize.trigger=0.8 (repeatable)',
      collect,
    );
}

/**
 * The `ctxkit` program. A command that decides its own exit status (`replay --check`) reports it through
 * `setExitStatus`. Each command's module is imported when that command runs, so `--version`, `--help` and
 * one command never load another's dependencies (the proxy's HTTP server, the replay's demo).
 */
export function buildProgram(setExitStatus: (status: number) => void = () => {}): Command {
  const program = new Command()
    .name('ctxkit')
    .description(
      'Keeps an LLM agent’s context inside the model’s window, cheaply, without losing what it needs.',
    )
    .version(packageVersion(), '-V, --version', 'print the version')
    // Commander's errors (unknown option, missing argument) come back here, to exit with 2, and
    // everything it prints goes through the terminal escape: an option name is input too.
    .exitOverride()
    .configureOutput({
      writeOut: (text) => process.stdout.write(escapeForTerminal(text, { multiline: true })),
      writeErr: (text) => process.stderr.write(escapeForTerminal(text, { multiline: true })),
    })
    .showHelpAfterError()
    .addHelpText(
      'after',
      `\nExit status: ${EXIT_OK} done · ${EXIT_CHECK_FAILED} replay --check found an overflow or an orphaned tool call · ${EXIT_BAD_INPUT} bad input, config or flag (the message says which) · ${EXIT_INTERNAL_ERROR} a bug in ctxkit`,
    );

  policyOptions(
    program
      .command('inspect')
      .description(
        'load sessions (corpus JSONL, OpenAI chat, Anthropic messages), validate them and report their tokens',
      )
      .argument('<paths...>', 'session files or directories of them')
      .option('--json', 'print the reports as JSON'),
  ).action(async (paths: string[], flags) => {
    const { inspectCommand } = await import('./inspect/inspect-command.ts');
    await inspectCommand(paths, flags);
  });

  policyOptions(
    program
      .command('config')
      .description(
        'show the effective policy and where each value came from (preset, file, environment, flag)',
      )
      .option('--changed', 'only values that differ from the preset')
      .option('--json', 'print policy and sources as JSON'),
  ).action(async (flags) => {
    const { configCommand } = await import('./config-command.ts');
    await configCommand(flags);
  });

  policyOptions(
    program
      .command('replay')
      .description(
        'replay recorded sessions through ctxkit: per model call what was sent, cached, compacted and kept (--demo: a built-in session)',
      )
      .argument('[paths...]', 'session files or directories of them')
      .option('--demo', 'replay a built-in, seeded coding-agent session (window 16k unless --window)')
      .option('--seed <n>', 'seed of the --demo session (default 42)')
      .option(
        '--pricing <read=X,write=Y>',
        'prompt-cache prices relative to list input price (default read=0.1,write=1.25)',
      )
      .option(
        '--model-summaries',
        'count every summary as a model call, as when the agent’s model writes them',
      )
      .option('--calls', 'show the per-call table (default: only for a single session)')
      .option('--no-calls', 'hide the per-call table')
      .option('--verbose', 'show what ctxkit did before each call and the facts that were lost')
      .option('--json', 'print the replays (SessionReplay[]) as JSON')
      .option(
        '--check',
        `exit ${EXIT_CHECK_FAILED} if any call overflowed the window or orphaned a tool call or result (for CI)`,
      )
      .option('--report <file>', 'also write an HTML report')
      .option(
        '--store <kind>',
        'where replayed sessions are kept: sqlite (the embedded default) or memory',
        'sqlite',
      )
      .option('--data <dir>', 'where sessions are kept (default ./.ctxkit)')
      .addHelpText(
        'after',
        `\n--policy takes one preset, several separated by commas (compared side by side), or a config file.\n--check prints each failing session and call on stderr and exits ${EXIT_CHECK_FAILED}; exit 0 when every call fits and keeps its tool pairs.\nExamples:\n  ctxkit replay --demo\n  ctxkit replay fixtures/corpus --window 16000 --check\n  ctxkit replay fixtures/corpus --policy default,tiancai --window 16000\n  ctxkit replay fixtures/corpus/openhands__basic.jsonl --calls --verbose --report replay.html`,
      ),
  ).action(async (paths: string[], flags) => {
    const { replayCommand } = await import('./replay/replay-command.ts');
    setExitStatus(await replayCommand(paths, flags));
  });

  policyOptions(
    program
      .command('chat')
      .argument(
        '[message...]',
        'a first message to send (then the chat goes on, or ends when stdin is not a terminal)',
      )
      .description(
        'talk to a tool-using agent whose context ctxkit manages (OpenAI-compatible servers or Anthropic)',
      )
      .option('--provider <name>', 'openai (any OpenAI-compatible server) or anthropic; inferred when clear')
      .option('--base-url <url>', 'the API root, e.g. http://127.0.0.1:11434/v1 for Ollama')
      .option('--data <dir>', 'where sessions are kept (default ./.ctxkit)')
      .option('--session <id>', 'resume this session (default: a new one)')
      .option('--cwd <dir>', 'the workspace the file and command tools work in (default: .)')
      .option('--allow-write', 'offer the write_file and edit_file tools (each change asked first)')
      .option('--allow-commands', 'offer the run_command tool (each command asked first)')
      .option('--yes', 'do not ask before writes and commands')
      .option('--max-steps <n>', 'model calls per turn at most (default 15)')
      .option('--system <text>', 'the agent’s system prompt')
      .option('--skills <dir>', 'a directory of skills (SKILL.md files) the agent can read')
      .option(
        '--no-prompt-cache',
        'Anthropic: send no prompt-cache breakpoints (ctxkit places them by default)',
      )
      .addHelpText(
        'after',
        '\nKeys come from OPENAI_API_KEY or ANTHROPIC_API_KEY; a local server needs only --base-url.\nThe window is what the server has the model loaded with when it says (Ollama, vLLM, llama.cpp), --window below that, else the model profile.\nExamples:\n  ctxkit chat --model gpt-4o\n  ctxkit chat --base-url http://127.0.0.1:11434/v1 --model qwen2.5-coder --allow-write\n  echo "list the files" | ctxkit chat --base-url http://127.0.0.1:8000/v1 --model m',
      ),
  ).action(async (message: string[], flags) => {
    const { chatCommand } = await import('./chat/chat-command.ts');
    setExitStatus(await chatCommand({ ...flags, ...(message.length > 0 && { message }) }));
  });

  policyOptions(
    program
      .command('serve')
      .description(
        'a proxy that manages context for any agent: point its base URL here (OpenAI Chat Completions and Anthropic Messages)',
      )
      .option('--port <n>', 'the port to listen on (default 8787; 0: any free port)')
      .option(
        '--host <host>',
        'the address to listen on (default 127.0.0.1; beyond loopback a token is required)',
      )
      .option('--data <dir>', 'where sessions are kept (default ./.ctxkit)')
      .option(
        '--upstream <url>',
        'the OpenAI-compatible API, /v1 included (default https://api.openai.com/v1)',
      )
      .option(
        '--upstream-anthropic <url>',
        'the Anthropic API (default https://api.anthropic.com, or --upstream when that is given)',
      )
      .option('--store <url>', 'keep sessions in PostgreSQL (postgres://…) instead of SQLite in --data')
      .option(
        '--max-held-sessions <n>',
        'with --store: sessions this instance holds at once, one PostgreSQL connection each (default 32)',
      )
      .option(
        '--token <token>',
        'a token clients must present (repeatable; default: CTXKIT_TOKEN, comma-separated)',
        collect,
      )
      .option('--max-body-mb <n>', 'the largest request body accepted, in MiB (default 32)')
      .option(
        '--read-back-rounds <n>',
        'read-backs the proxy answers itself per request (default 4; 0: none)',
      )
      .option(
        '--no-prompt-cache',
        "send Anthropic requests without ctxkit's prompt-cache breakpoints (placed by default on a request whose client marked none)",
      )
      .option(
        '--upstream-timeout <seconds>',
        'seconds the upstream may send nothing (before its answer, or between two pieces of it) before the client gets a 504 (default 300, also the most)',
      )
      .addHelpText(
        'after',
        '\nThe client\'s own key (Authorization or x-api-key) goes upstream; a client that sends none, or sends the\nproxy token as its key, gets OPENAI_API_KEY / ANTHROPIC_API_KEY from this environment. Name a session with\nthe x-ctxkit-session header, or let ctxkit recognize the conversation. --window is the window of models\nthat neither the upstream nor the profile table knows.\nExamples:\n  ctxkit serve --upstream http://127.0.0.1:11434/v1\n  ctxkit serve --host 0.0.0.0 --token "$(openssl rand -hex 24)" --store postgres://ctxkit@db/ctxkit',
      ),
    true,
  ).action(async (flags) => {
    const { serveCommand } = await import('./serve-command.ts');
    setExitStatus(await serveCommand(flags));
  });

  policyOptions(
    program
      .command('prune')
      .description(
        'remove sessions idle longer than the retention period (30 days by default) with their blobs and trace',
      )
      .option('--dry-run', 'list what would be removed, remove nothing')
      .option(
        '--days <n>',
        'idle days before a session goes (default: the policy, retention.maxIdleDays; 0 keeps every session)',
      )
      .option('--data <dir>', 'where sessions are kept (default ./.ctxkit)'),
  ).action(async (flags) => {
    const { pruneCommand } = await import('./prune-command.ts');
    await pruneCommand(flags);
  });

  return program;
}

/** Runs the CLI on `argv` and returns the exit status (see exit-codes.ts). */
export async function main(argv: string[]): Promise<number> {
  try {
    let status = EXIT_OK;
    await buildProgram((code) => {
      status = code;
    }).parseAsync(argv);
    return status;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and --version exit 0; commander has already printed its own error otherwise.
      return error.exitCode === 0 ? EXIT_OK : EXIT_BAD_INPUT;
    }
    const described = describeError(error);
    // A user error is one line whatever its input holds (a file name with a newline must not print a
    // line of its own); only an internal error's stack trace keeps its lines.
    const message = escapeForTerminal(described.message, { multiline: described.internal });
    process.stderr.write(`${pc.red('error')} ${message}\n`);
    return described.exitCode;
  }
}

// A reader that went away (`ctxkit … | head`) is not an error of ours: what is left to print is dropped.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
});
process.exitCode = await main(process.argv);
