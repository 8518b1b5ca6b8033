import { CtxkitError } from './ctxkit-error.ts';
import type { ErrorCode } from './error-codes.ts';

/** A policy or config value that is not accepted: names the key. */
export class InvalidPolicyError extends CtxkitError {
  static override readonly code: ErrorCode = 'invalid_policy';
  readonly key: string;

  constructor(key: string, reason: string, details: Record<string, unknown> = {}) {
    super('invalid_policy', `${key}: ${reason}`, { key, reason, ...details });
    this.key = key;
  }
}

/** A model name that no profile knows, with no context window configured to stand in for it. */
export class UnknownModelError extends CtxkitError {
  static override readonly code: ErrorCode = 'unknown_model';
  constructor(model: string, suggestion?: string) {
    super(
      'unknown_model',
      `unknown model "${model}" and no context window configured: pass contextWindow to createContextManager (or prepare), set budget.contextWindow, or use --window on the command line${
        suggestion ? `, or did you mean "${suggestion}"?` : ''
      }`,
      { model, suggestion },
    );
  }
}

/**
 * A policy value from a config source (a file, an environment variable, a command-line flag) that is
 * not accepted: names the source and the key, and the line for files. Still an InvalidPolicyError,
 * so callers that handle policy errors handle these too; the code tells the two apart.
 */
export class InvalidConfigError extends InvalidPolicyError {
  static override readonly code: ErrorCode = 'invalid_config';
  override readonly code: ErrorCode = 'invalid_config';
  /** Where the value came from: `file:ctxkit.yaml#summarize.trigger`, `env:CTXKIT_…`, `flag:--window`. */
  readonly source: string;
  readonly file: string | undefined;
  readonly line: number | undefined;

  constructor(
    key: string,
    reason: string,
    where: { source: string; file?: string; line?: number; label?: string },
    details: Record<string, unknown> = {},
  ) {
    super(key, reason, { ...details, source: where.source, file: where.file, line: where.line });
    this.source = where.source;
    this.file = where.file;
    this.line = where.line;
    const location =
      where.label ??
      (where.file !== undefined
        ? `${where.file}${where.line !== undefined ? `:${where.line}` : ''}`
        : where.source);
    this.message = `${location}: ${key}: ${reason}`;
  }
}

export class MissingApiKeyError extends CtxkitError {
  static override readonly code: ErrorCode = 'missing_api_key';
  constructor(variable: string) {
    super('missing_api_key', `summarize.model.apiKeyEnv: environment variable ${variable} is not set`, {
      variable,
    });
  }
}
