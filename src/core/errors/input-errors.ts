import type { Message } from '../message.ts';
import { CtxkitError } from './ctxkit-error.ts';
import type { ErrorCode } from './error-codes.ts';

/** Input that does not match a format: names the file, the line (1-based) and the field when known. */
export class InvalidInputError extends CtxkitError {
  static override readonly code: ErrorCode = 'invalid_input';
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

/**
 * A message handed to `append` or `sync` that is not a `MessageInput`: names the message's index and the
 * field, e.g. `messages[2].parts[0].callId`. Nothing of the call was stored.
 */
export class InvalidMessageError extends CtxkitError {
  static override readonly code: ErrorCode = 'invalid_message';
  /** Index of the message in the array given, or undefined when the array itself is wrong. */
  readonly index: number | undefined;
  /** Where, from the argument: `messages[2].parts[0].callId`. */
  readonly path: string;

  constructor(path: string, reason: string, index?: number) {
    super('invalid_message', `${path}: ${reason}`, { path, reason, index });
    this.index = index;
    this.path = path;
  }
}

/**
 * An appended message whose caller-given `id` is already in the session's log with different content
 * (role or parts): ids name one message, so it is neither a retry nor a new message. Nothing of the call
 * was stored.
 */
export class MessageIdConflictError extends CtxkitError {
  static override readonly code: ErrorCode = 'message_id_conflict';
  readonly messageId: string;

  constructor(sessionId: string, messageId: string, index: number, storedSeq: number) {
    super(
      'message_id_conflict',
      `session ${sessionId}: messages[${index}] has id ${JSON.stringify(messageId)}, already logged at seq ${storedSeq} with different content`,
      { sessionId, messageId, index, storedSeq },
    );
    this.messageId = messageId;
  }
}

/** A session id ctxkit cannot accept (see `MAX_SESSION_ID_LENGTH` and the rules above). */
export class InvalidSessionIdError extends CtxkitError {
  static override readonly code: ErrorCode = 'invalid_session_id';
  constructor(value: unknown, reason: string) {
    const shown = typeof value === 'string' ? JSON.stringify(value.slice(0, 80)) : String(value);
    super('invalid_session_id', `invalid session id ${shown}: ${reason}`, { reason });
  }
}

/**
 * A message with nothing to send (no parts, or a tool message without a result): the Anthropic API
 * refuses empty content. Skip it, as `toAnthropicMessages` leaves such messages out.
 */
export class EmptyAnthropicMessageError extends CtxkitError {
  static override readonly code: ErrorCode = 'empty_message';
  constructor(role: Message['role']) {
    super(
      'empty_message',
      `an empty ${role} message has no Anthropic form (the API refuses empty content): skip it`,
      { role },
    );
  }
}
