import { CtxkitError } from '../core/errors.ts';

/** A command-line flag with a value ctxkit cannot use: names the flag as the user typed it. */
export class FlagError extends CtxkitError {
  readonly flag: string;

  /** `flag` with its dashes (`--window`); `reason` says what was expected and what was given. */
  constructor(flag: string, reason: string, value?: string) {
    super('invalid_flag', `${flag}: ${reason}`, { flag, value });
    this.flag = flag;
  }
}
