import { CtxkitError, type CtxkitErrorOptions } from './ctxkit-error.ts';
import type { ErrorCode } from './error-codes.ts';

/**
 * A package ctxkit loads only for one feature (the provider SDKs, which only model calls need) is not
 * installed. The message says what to install, because the fix is always the same command.
 */
export class MissingDependencyError extends CtxkitError {
  static override readonly code: ErrorCode = 'missing_dependency';
  /** The package to install, as npm names it (a scoped one with its scope). */
  readonly packageName: string;
  /** What needs it, as the message's subject (`the Anthropic model client`). */
  readonly feature: string;

  constructor(packageName: string, feature: string, options: CtxkitErrorOptions = {}) {
    super(
      'missing_dependency',
      `${feature} needs the \`${packageName}\` package: npm install ${packageName}`,
      { packageName, feature },
      options,
    );
    this.packageName = packageName;
    this.feature = feature;
  }
}
