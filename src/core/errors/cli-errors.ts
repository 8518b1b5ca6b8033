import { CtxkitError } from './ctxkit-error.ts';
import type { ErrorCode } from './error-codes.ts';

/** A command-line flag with a value ctxkit cannot use: names the flag as the user typed it. */
export class FlagError extends CtxkitError {
  static override readonly code: ErrorCode = 'invalid_flag';
  readonly flag: string;

  /** `flag` with its dashes (`--window`); `reason` says what was expected and what was given. */
  constructor(flag: string, reason: string, value?: string) {
    super('invalid_flag', `${flag}: ${reason}`, { flag, value });
    this.flag = flag;
  }
}

/** Bad `ctxkit replay` input (no sessions, a malformed flag): exit status 2, with what to fix. */
export class ReplayInputError extends CtxkitError {
  static override readonly code: ErrorCode = 'invalid_replay_input';
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('invalid_replay_input', message, details);
  }
}

/** A directory given on the command line with no session file in it. */
export class NoSessionsError extends CtxkitError {
  static override readonly code: ErrorCode = 'no_sessions';
  constructor(path: string) {
    super('no_sessions', `no sessions in ${path} (looked for .jsonl and .json transcripts)`, { path });
  }
}
