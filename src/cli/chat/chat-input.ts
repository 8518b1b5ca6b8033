/**
 * How `ctxkit chat` reads what the person types: at a terminal (a prompt, Ctrl-C, questions, pastes) or
 * from a pipe (a message or command per line). Both hand each message to the ChatSession in turn.
 */
import { createInterface } from 'node:readline';
import type { ConfirmRequest } from '../../agent/agent-tool.ts';
import { escapeForTerminal } from '../../core/escape-for-terminal.ts';
import type { ChatIo } from './chat-io.ts';
import type { ChatOutput, ChatSession } from './chat-session.ts';

/** Lines typed faster than this apart are one paste: one message with newlines, not one per line. */
export const PASTE_JOIN_MS = 25;

export interface Asker {
  confirm: (request: ConfirmRequest) => Promise<boolean>;
  /** A line typed while a question is open answers it (interactive only); true when it did. */
  answer?: (line: string) => boolean;
  /** Whether a question is waiting for its answer. */
  asking?: () => boolean;
}

export function createAsker(io: ChatIo, interactive: boolean, yes: boolean, out: ChatOutput): Asker {
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
        if (request.detail) out.line(out.colors.dim(escapeForTerminal(request.detail, { multiline: true })));
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
    asking: () => pending !== undefined,
  };
}

/**
 * Piped input: each line in turn, plain output. SIGINT cancels the turn in flight, or ends the run when
 * none is. Resolves true when a turn failed.
 */
export async function runScripted(
  session: ChatSession,
  io: ChatIo,
  stop: AbortSignal,
  interrupt: () => void,
  first: string | undefined,
): Promise<boolean> {
  // A signal that came while the chat was opening has already stopped it.
  if (stop.aborted) return false;
  const lines = createInterface({ input: io.input, terminal: false, crlfDelay: Number.POSITIVE_INFINITY });
  let running: AbortController | undefined;
  let failed = false;
  const onSigint = () => {
    if (running) running.abort(new Error('cancelled'));
    else interrupt();
  };
  const onStop = () => {
    running?.abort(new Error('stopped'));
    lines.close();
  };
  process.on('SIGINT', onSigint);
  stop.addEventListener('abort', onStop);
  const handle = async (line: string) => {
    running = new AbortController();
    try {
      const result = await session.handle(line, running.signal);
      if (result === 'failed') failed = true;
      return result;
    } finally {
      running = undefined;
    }
  };
  // Taken before the first message runs: lines and the end of input that arrive meanwhile wait for it,
  // where an iterator taken after the input ended would wait forever (`chat "hi" </dev/null`).
  const input = lines[Symbol.asyncIterator]();
  try {
    if (first && (await handle(first)) === 'exit') return failed;
    for (let next = await input.next(); !next.done; next = await input.next()) {
      if (stop.aborted) break;
      if ((await handle(next.value)) === 'exit') break;
    }
  } finally {
    process.off('SIGINT', onSigint);
    stop.removeEventListener('abort', onStop);
    lines.close();
  }
  return failed;
}

/**
 * At a terminal: a prompt; Ctrl-C cancels what runs (a question it interrupts is answered no and the turn
 * cancelled), clears a line being typed, and twice at an empty prompt leaves; Ctrl-D leaves. Lines that
 * arrive together (a paste) are one message.
 */
export async function runInteractive(
  session: ChatSession,
  io: ChatIo,
  ask: Asker,
  out: ChatOutput,
  stop: AbortSignal,
  first: string | undefined,
): Promise<boolean> {
  const rl = createInterface({ input: io.input, output: io.output, terminal: true, historySize: 200 });
  rl.setPrompt(out.colors.bold('› '));
  out.line(await session.statusLine());
  let running: AbortController | undefined;
  let current: Promise<void> | undefined;
  let interruptedAtPrompt = false;
  const queue: string[] = [];
  let pasted: string[] = [];
  let pasteTimer: NodeJS.Timeout | undefined;
  await new Promise<void>((finish) => {
    let closing = false;
    // Leaving waits for the turn in flight to stop (it was aborted), so nothing is written after the
    // stores close.
    const leave = () => {
      if (closing) return;
      closing = true;
      clearTimeout(pasteTimer);
      running?.abort(new Error('cancelled'));
      ask.answer?.('n');
      rl.close();
      out.write('\n');
      void (current ?? Promise.resolve()).finally(finish);
    };
    const drain = async () => {
      while (queue.length > 0 && !closing) {
        const line = queue.shift() ?? '';
        running = new AbortController();
        let result: 'exit' | 'failed' | undefined;
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
    const submit = (message: string) => {
      queue.push(message);
      if (current === undefined) current = drain();
    };
    rl.on('line', (line) => {
      interruptedAtPrompt = false;
      if (ask.answer?.(line)) return;
      pasted.push(line);
      clearTimeout(pasteTimer);
      pasteTimer = setTimeout(() => {
        const message = pasted.join('\n');
        pasted = [];
        submit(message);
      }, PASTE_JOIN_MS);
    });
    rl.on('SIGINT', () => {
      if (ask.asking?.()) {
        ask.answer?.('n');
        out.write('\n');
        running?.abort(new Error('cancelled'));
        return;
      }
      if (running) {
        running.abort(new Error('cancelled'));
        return;
      }
      if (rl.line.length > 0) {
        // A line being typed is discarded, as a shell does; it does not count toward leaving.
        rl.write(null, { ctrl: true, name: 'u' });
        out.write('\n');
        rl.prompt();
        return;
      }
      if (interruptedAtPrompt) return leave();
      interruptedAtPrompt = true;
      out.write(`\n${out.colors.dim('(Ctrl-C again, /exit or Ctrl-D to leave)')}\n`);
      rl.prompt();
    });
    rl.on('close', leave);
    stop.addEventListener('abort', leave, { once: true });
    // A signal that came while the chat was opening has already stopped it.
    if (stop.aborted) return leave();
    if (first) {
      out.write(`${out.colors.bold('› ')}${escapeForTerminal(first)}\n`);
      submit(first);
    } else rl.prompt();
  });
  return false;
}
