/**
 * `ctxkit chat`: a tool-using agent in the terminal, on ctxkit. At a terminal it streams each answer as
 * it arrives, shows every tool call and a one-line result, and ends each turn with the status line;
 * Ctrl-C cancels the call or tool in flight, not the program. With stdin not a terminal it reads one
 * message or command per line and prints plain text, so it can be scripted.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import pc from 'picocolors';
import type { ConfirmRequest } from '../../agent/agent-tool.ts';
import { DEFAULT_MAX_STEPS } from '../../agent/run-turn.ts';
import { FlagError } from '../../core/errors/index.ts';
import { assertValidSessionId } from '../../core/session-id.ts';
import { createFsSkillSource } from '../../store/fs-skill-source.ts';
import { openEmbeddedStores } from '../../store/open-embedded-stores.ts';
import { sweepIdleSessions } from '../../store/retention.ts';
import { DEFAULT_DATA_DIR } from '../../store/sqlite-session-store.ts';
import { escapeForTerminal } from '../escape-for-terminal.ts';
import { parseCountFlag } from '../parse-count-flag.ts';
import { loadConfigFromFlags, type PolicyFlags } from '../policy-flags.ts';
import { type ChatOutput, ChatSession } from './chat-session.ts';
import { loadChatSettings } from './chat-settings.ts';
import { chatTools } from './chat-tools.ts';
import { connectModel, resolveChatWindow } from './connect-model.ts';

export interface ChatFlags extends PolicyFlags {
  provider?: string;
  baseUrl?: string;
  data?: string;
  session?: string;
  cwd?: string;
  allowWrite?: boolean;
  allowCommands?: boolean;
  yes?: boolean;
  maxSteps?: string;
  system?: string;
  skills?: string;
}

export interface ChatIo {
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: NodeJS.WritableStream & { isTTY?: boolean };
  env: Readonly<Record<string, string | undefined>>;
}

/** The agent's instructions when `--system` does not say. */
export const DEFAULT_CHAT_SYSTEM_PROMPT =
  'You are a capable software agent working in the user’s workspace. Use the tools to look before you ' +
  'answer: list, read and search files; write, edit and run commands when those tools are offered. Keep ' +
  'a short plan for multi-step work and say what you changed. When a tool result was moved out of the ' +
  'conversation, its pointer names a ref: read it back with read_offloaded when you need it.';

/** The most `--max-steps` takes: a turn of more model calls is a runaway, not a plan. */
export const MAX_CHAT_STEPS = 1_000;

export function newChatSessionId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `chat-${stamp}-${randomBytes(3).toString('hex')}`;
}

export async function chatCommand(
  flags: ChatFlags,
  io: ChatIo = { input: process.stdin, output: process.stdout, env: process.env },
): Promise<void> {
  const interactive = io.input.isTTY === true && io.output.isTTY === true;
  const colors = interactive ? pc : pc.createColors(false);
  const out: ChatOutput = {
    write: (text) => io.output.write(text),
    line: (text) => io.output.write(`${text}\n`),
    colors,
    interactive,
  };
  const maxSteps =
    parseCountFlag('--max-steps', flags.maxSteps, { unit: 'model calls', max: MAX_CHAT_STEPS }) ??
    DEFAULT_MAX_STEPS;
  const sessionId = flags.session ?? newChatSessionId();
  assertValidSessionId(sessionId);
  const root = resolve(flags.cwd ?? '.');
  if (!existsSync(root))
    throw new FlagError('--cwd', `no such directory: ${JSON.stringify(root)}`, flags.cwd);

  const connection = connectModel(flags, io.env);
  const base = await loadConfigFromFlags({ ...flags, model: connection.model });
  const windowFlag = parseCountFlag('--window', flags.window, { unit: 'tokens', zero: 'auto' }) || undefined;
  const window = await resolveChatWindow(connection, windowFlag);
  const maxOutput =
    parseCountFlag('--max-output', flags.maxOutput, { unit: 'tokens', zero: 'auto' }) || undefined;
  if (window.contextWindow === undefined && base.policy.budget.contextWindow <= 0)
    throw new FlagError(
      '--window',
      `the window of model ${JSON.stringify(connection.model)} is not known: the server does not say it and no model profile has it; pass --window N (the context size the model is loaded with)`,
    );

  const dataDir = flags.data ?? DEFAULT_DATA_DIR;
  const stores = await openEmbeddedStores({ dataDir });
  try {
    // Idle sessions past retention go on start (cowagent: 30 days), as `ctxkit prune` would remove them.
    const retention = base.policy.retention.maxIdleDays;
    if (retention > 0) {
      const report = await sweepIdleSessions({
        sessions: stores.store,
        blobs: stores.blobs,
        trace: stores.trace,
        now: Date.now(),
        maxIdleDays: retention,
        dryRun: false,
      });
      if (report.removed.length > 0)
        out.line(colors.dim(`removed ${report.removed.length} session(s) idle more than ${retention} days`));
    }
    const resumed = flags.session !== undefined && (await stores.store.load(sessionId)) !== undefined;
    const settings = await loadChatSettings(dataDir, sessionId);
    const ask = createAsker(io, interactive, flags.yes === true, out);
    const session = await ChatSession.open({
      sessionId,
      stores,
      connection,
      loadPolicy: async (extra) =>
        (
          await loadConfigFromFlags({
            ...flags,
            model: connection.model,
            set: [...(flags.set ?? []), ...extra],
          })
        ).policy,
      settings,
      contextWindow: window.contextWindow,
      maxOutputTokens: maxOutput,
      system: flags.system ?? DEFAULT_CHAT_SYSTEM_PROMPT,
      maxSteps,
      toolsFor: (manager, config) =>
        chatTools({
          manager,
          config,
          root,
          allowWrite: flags.allowWrite === true,
          allowCommands: flags.allowCommands === true,
        }),
      ...(flags.skills !== undefined && { skills: createFsSkillSource([flags.skills]) }),
      confirm: ask.confirm,
      out,
    });
    const windowNote =
      window.contextWindow === undefined
        ? 'window from the policy'
        : `window ${window.contextWindow.toLocaleString('en-US')} (${window.source === 'server' ? 'as the server has it loaded' : window.source === 'flag' ? '--window' : window.source === 'profile' ? 'model profile' : window.source}${window.served !== undefined && window.source !== 'server' ? `; the server has ${window.served.toLocaleString('en-US')}` : ''})`;
    out.line(
      colors.dim(
        `ctxkit chat · ${escapeForTerminal(connection.model)} via ${connection.provider} · ${windowNote} · ${resumed ? 'resuming' : 'session'} ${escapeForTerminal(sessionId)} · /help for commands`,
      ),
    );
    if (!interactive) await runScripted(session, io, ask);
    else await runInteractive(session, io, ask, out);
    await session.close();
    out.line(
      colors.dim(
        `session ${escapeForTerminal(sessionId)} kept: resume with --session ${escapeForTerminal(sessionId)}`,
      ),
    );
  } finally {
    await stores.close();
  }
}

interface Asker {
  confirm: (request: ConfirmRequest) => Promise<boolean>;
  /** A line typed while a question is open answers it (interactive only). */
  answer?: (line: string) => boolean;
}

function createAsker(io: ChatIo, interactive: boolean, yes: boolean, out: ChatOutput): Asker {
  if (yes) return { confirm: async () => true };
  if (!interactive) {
    return {
      confirm: async (request) => {
        out.line(
          `(not allowed: ${escapeForTerminal(request.summary)}; stdin is not a terminal to ask, pass --yes to allow)`,
        );
        return false;
      },
    };
  }
  let pending: ((answer: boolean) => void) | undefined;
  return {
    confirm: (request) =>
      new Promise<boolean>((resolveAnswer) => {
        io.output.write(`${out.colors.yellow('?')} allow ${escapeForTerminal(request.summary)} [y/N] `);
        pending = resolveAnswer;
      }),
    answer: (line) => {
      if (!pending) return false;
      const done = pending;
      pending = undefined;
      done(/^\s*y(es)?\s*$/i.test(line));
      return true;
    },
  };
}

/** Piped input: each line in turn, plain output; SIGINT cancels the turn in flight. */
async function runScripted(session: ChatSession, io: ChatIo, _ask: Asker): Promise<void> {
  const lines = createInterface({ input: io.input, terminal: false, crlfDelay: Number.POSITIVE_INFINITY });
  let controller = new AbortController();
  const onSigint = () => controller.abort(new Error('cancelled'));
  process.on('SIGINT', onSigint);
  try {
    for await (const line of lines) {
      controller = new AbortController();
      if ((await session.handle(line, controller.signal)) === 'exit') break;
    }
  } finally {
    process.off('SIGINT', onSigint);
    lines.close();
  }
}

/** At a terminal: a prompt, Ctrl-C cancels what runs (twice at an empty prompt leaves), Ctrl-D leaves. */
async function runInteractive(session: ChatSession, io: ChatIo, ask: Asker, out: ChatOutput): Promise<void> {
  const rl = createInterface({ input: io.input, output: io.output, terminal: true, historySize: 200 });
  rl.setPrompt(out.colors.bold('› '));
  out.line(await session.statusLine());
  let running: AbortController | undefined;
  let current: Promise<void> | undefined;
  let interruptedAtPrompt = false;
  const queue: string[] = [];
  await new Promise<void>((finish) => {
    let closing = false;
    // Leaving waits for the turn in flight to stop (it was aborted), so nothing is written after the
    // stores close.
    const leave = () => {
      if (closing) return;
      closing = true;
      running?.abort(new Error('cancelled'));
      rl.close();
      void (current ?? Promise.resolve()).finally(finish);
    };
    const drain = async () => {
      while (queue.length > 0 && !closing) {
        const line = queue.shift() ?? '';
        running = new AbortController();
        let result: 'exit' | undefined;
        try {
          result = await session.handle(line, running.signal);
        } finally {
          running = undefined;
        }
        if (result === 'exit') {
          current = undefined;
          return leave();
        }
      }
      current = undefined;
      if (!closing) rl.prompt();
    };
    rl.on('line', (line) => {
      interruptedAtPrompt = false;
      if (ask.answer?.(line)) return;
      queue.push(line);
      if (current === undefined) current = drain();
    });
    rl.on('SIGINT', () => {
      if (ask.answer?.('n')) return;
      if (running) {
        running.abort(new Error('cancelled'));
        return;
      }
      if (interruptedAtPrompt) return leave();
      interruptedAtPrompt = true;
      io.output.write(`\n${out.colors.dim('(Ctrl-C again, /exit or Ctrl-D to leave)')}\n`);
      rl.prompt();
    });
    rl.on('close', leave);
    rl.prompt();
  });
}
