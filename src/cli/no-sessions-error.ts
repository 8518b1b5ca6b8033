import { CtxkitError } from '../core/errors.ts';

/** A directory given on the command line with no session file in it. */
export class NoSessionsError extends CtxkitError {
  constructor(path: string) {
    super('no_sessions', `no sessions in ${path} (looked for .jsonl and .json transcripts)`, { path });
  }
}
