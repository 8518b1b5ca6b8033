/**
 * `ctxkit chat`: a tool-using agent in the terminal, on ctxkit. At a terminal it streams each answer as
 * it arrives, shows every tool call and a one-line result, and ends each turn with the status line;
 * Ctrl-C cancels the call or tool in flight, not the program. With stdin not a terminal it reads one
 * message or command per line and prints plain text, so it can be scripted.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import pc from 'picocolors';
import { DEFAULT_MAX_STEPS } from '../../agent/run-turn.ts';
import { FlagError } from '../../core/errors/index.ts';
import { escapeForTerminal } from '../../core/escape-for-terminal.ts';
import { assertValidSessionId } from '../../core/session-id.ts';
import { createFsSkillSource } from '../../store/fs-skill-source.ts';
import { type EmbeddedStores, openEmbeddedStores } from '../../store/open-embedded-stores.ts';
import { sweepIdleSessions } from '../../store/retention.ts';
import { DEFAULT_DATA_DIR } from '../../store/sqlite-session-store.ts';
import { parseCountFlag } from '../parse-count-flag.ts';
import { loadConfigFromFlags, type PolicyFlags } from '../policy-flags.ts';
import { createAsker, runInteractive, runScripted } from './chat-input.ts';
import type { ChatIo } from './chat-io.ts';
import { type ChatOutput, ChatSession } from './chat-session.ts';
import { loadChatSettings } from './chat-settings.ts';
import { chatTools } from './chat-tools.ts';
import { chooseChatWindow, connectModel, describeChatWindow } from './connect-model.ts';
import { lockSession, type SessionLock } from './session-lock.ts';

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
  /** A first message, given on the command line (`ctxkit chat "fix the failing test"`). */
  message?: string[];
}

export type { ChatIo } from './chat-io.ts';

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

/** Exit statuses of `ctxkit chat` beside 0: a scripted message that failed, and the signals that stopped it. */
export const EXIT_TURN_FAILED = 1;
const SIGNAL_EXIT: Readonly<Record<string, number>> = { SIGINT: 130, SIGHUP: 129, SIGTERM: 143 };

/** A session id as a shell argument: quoted when it needs to be, so the resume hint can be pasted back. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

export async function chatCommand(
  flags: ChatFlags,
  io: ChatIo = { input: process.stdin, output: process.stdout, env: process.env },
): Promise<number> {
  // Questions and the prompt need a person at stdin; colours need a terminal at stdout.
  const interactive = io.input.isTTY === true;
  const colors = pc.createColors(io.output.isTTY === true && pc.isColorSupported);
  // SIGTERM, SIGHUP (the terminal closed) and a reader that went away end the chat cleanly: the turn in
  // flight is cancelled (a running command's process group with it) and the stores are closed.
  const stop = new AbortController();
  let stoppedBy: string | undefined;
  const stopOn = (reason: string) => () => {
    stoppedBy ??= reason;
    stop.abort(new Error(reason));
  };
  const onTerm = stopOn('SIGTERM');
  const onHup = stopOn('SIGHUP');
  const onInt = stopOn('SIGINT');
  // From the first moment, SIGINT ends the chat through the same clean path. While input is read, the
  // reader's own handler decides (it cancels a turn in flight instead), so this one stands aside. While
  // the chat opens (a server asked for its models, with a timeout), a second SIGINT does not wait.
  const onIntOutsideReader = () => {
    if (process.listenerCount('SIGINT') !== 1) return;
    if (stoppedBy === 'SIGINT') process.exit(SIGNAL_EXIT.SIGINT);
    onInt();
  };
  process.on('SIGTERM', onTerm);
  process.on('SIGHUP', onHup);
  process.on('SIGINT', onIntOutsideReader);
  let outputGone = false;
  io.output.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    outputGone = true;
    stopOn('EPIPE')();
  });
  const write = (text: string) => {
    if (!outputGone) io.output.write(text);
  };
  const out: ChatOutput = {
    write,
    line: (text) => write(`${text}\n`),
    colors,
    interactive,
  };
  try {
    const failed = await openAndRun(flags, io, out, stop.signal, onInt);
    if (stoppedBy === 'EPIPE') return 0;
    if (stoppedBy) return SIGNAL_EXIT[stoppedBy] ?? 1;
    return failed ? EXIT_TURN_FAILED : 0;
  } finally {
    process.off('SIGTERM', onTerm);
    process.off('SIGHUP', onHup);
    process.off('SIGINT', onIntOutsideReader);
  }
}

/** Resolves true when a scripted run had a turn that failed. */
async function openAndRun(
  flags: ChatFlags,
  io: ChatIo,
  out: ChatOutput,
  stop: AbortSignal,
  interrupt: () => void,
): Promise<boolean> {
  const { colors, interactive } = out;
  const maxSteps =
    parseCountFlag('--max-steps', flags.maxSteps, { unit: 'model calls', max: MAX_CHAT_STEPS }) ??
    DEFAULT_MAX_STEPS;
  const sessionId = flags.session ?? newChatSessionId();
  assertValidSessionId(sessionId);
  const root = resolve(flags.cwd ?? '.');
  if (!existsSync(root) || !statSync(root).isDirectory())
    throw new FlagError('--cwd', `not a directory: ${JSON.stringify(root)}`, flags.cwd);
  if (flags.skills !== undefined && (!existsSync(flags.skills) || !statSync(flags.skills).isDirectory()))
    throw new FlagError('--skills', `not a directory: ${JSON.stringify(flags.skills)}`, flags.skills);

  const connection = await connectModel(flags, io.env);
  const base = await loadConfigFromFlags({ ...flags, model: connection.model });
  const windowFlag = parseCountFlag('--window', flags.window, { unit: 'tokens', zero: 'auto' }) || undefined;
  const window = await chooseChatWindow(connection, base.policy, flags);

  const dataDir = flags.data ?? DEFAULT_DATA_DIR;
  const stores = await openStores(dataDir);
  let lock: SessionLock | undefined;
  try {
    lock = lockSession(dataDir, sessionId);
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
      preset: base.preset,
      contextWindow: window.forCalls,
      // --max-output is in the policy (the flags are a config layer).
      maxOutputTokens: undefined,
      system: flags.system ?? DEFAULT_CHAT_SYSTEM_PROMPT,
      maxSteps,
      toolsFor: (manager, config) =>
        chatTools({
          manager,
          config,
          root,
          allowWrite: flags.allowWrite === true,
          allowCommands: flags.allowCommands === true,
          privatePaths: [resolve(dataDir)],
        }),
      ...(flags.skills !== undefined && { skills: createFsSkillSource([flags.skills]) }),
      confirm: ask.confirm,
      out,
    });
    // What the window leaves once the system prompt, the tool definitions and the reply reserve are in.
    const fixed = await session.fixedTokens();
    if (fixed.total >= fixed.contextWindow)
      throw new FlagError(
        window.windowSource === 'explicit' ? '--window' : '--max-output',
        `the window (${fixed.contextWindow.toLocaleString('en-US')} tokens) leaves no room for the conversation: the system prompt takes ${fixed.system.toLocaleString('en-US')}, the tool definitions ${fixed.tools.toLocaleString('en-US')} and the reply reserve ${fixed.reserve.toLocaleString('en-US')}`,
      );
    const windowNote = describeChatWindow(window, windowFlag);
    out.line(
      colors.dim(
        `ctxkit chat · ${escapeForTerminal(connection.model)} via ${connection.provider} · ${windowNote} · ${resumed ? 'resuming' : 'session'} ${escapeForTerminal(sessionId)} · /help for commands`,
      ),
    );
    const first = flags.message?.join(' ').trim();
    const failed = interactive
      ? await runInteractive(session, io, ask, out, stop, first)
      : await runScripted(session, io, stop, interrupt, first);
    await session.close();
    out.line(
      colors.dim(
        `session ${escapeForTerminal(sessionId)} kept: resume with --session ${escapeForTerminal(shellWord(sessionId))}`,
      ),
    );
    return failed;
  } finally {
    lock?.release();
    await stores.close();
  }
}

/** The embedded stores, with a data directory that cannot be used said as what it is. */
async function openStores(dataDir: string): Promise<EmbeddedStores> {
  try {
    return await openEmbeddedStores({ dataDir });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && /^SQLITE_(CANTOPEN|READONLY|PERM|AUTH)/.test(code))
      throw new FlagError(
        '--data',
        `cannot keep sessions in ${JSON.stringify(dataDir)}: ${error instanceof Error ? error.message : String(error)}`,
        dataDir,
      );
    throw error;
  }
}
