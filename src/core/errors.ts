/**
 * Every error ctxkit throws on purpose is a CtxkitError with a stable `code`, so callers (and the CLI,
 * which maps them to exit code 2) can tell them apart without parsing messages.
 */
export class CtxkitError extends Error {
  readonly code: string;
  readonly details: Record<string, unknown>;

  constructor(code: string, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.details = details;
  }
}

/** Input that does not match a format: names the file, the line (1-based) and the field when known. */
export class InvalidInputError extends CtxkitError {
  readonly file: string | undefined;
  readonly line: number | undefined;
  readonly field: string | undefined;

  constructor(reason: string, where: { file?: string; line?: number; field?: string } = {}) {
    const location = [
      where.file,
      where.line !== undefined ? `line ${where.line}` : undefined,
      where.field !== undefined ? `field ${where.field}` : undefined,
    ]
      .filter((piece) => piece !== undefined)
      .join(', ');
    super('invalid_input', location ? `${location}: ${reason}` : reason, { ...where, reason });
    this.file = where.file;
    this.line = where.line;
    this.field = where.field;
  }
}

/** A policy or config value that is not accepted: names the key. */
export class InvalidPolicyError extends CtxkitError {
  readonly key: string;

  constructor(key: string, reason: string, details: Record<string, unknown> = {}) {
    super('invalid_policy', `${key}: ${reason}`, { key, reason, ...details });
    this.key = key;
  }
}

/** A model name that no profile knows, with no context window configured to stand in for it. */
export class UnknownModelError extends CtxkitError {
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
  override readonly code: string = 'invalid_config';
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
