import type { FixedRegion } from '../core/budget/context-budget.ts';
import { CtxkitError } from '../core/errors.ts';

/**
 * Even an empty history cannot fit: the fixed regions (system prompt, tool definitions, output reserve)
 * take the whole window. Names the region to shrink and every figure, since no compaction can help.
 */
export class ContextBudgetError extends CtxkitError {
  readonly region: FixedRegion | 'history';

  constructor(
    region: FixedRegion | 'history',
    figures: {
      contextWindow: number;
      system: number;
      toolDefinitions: number;
      maxOutputTokens: number;
      summary: number;
    },
  ) {
    const detail = `window ${figures.contextWindow}: system ${figures.system}, tools ${figures.toolDefinitions}, output reserve ${figures.maxOutputTokens}, summary ${figures.summary}`;
    super(
      'context_budget_exceeded',
      region === 'history'
        ? `the newest message alone cannot fit beside the fixed regions (${detail})`
        : `the ${regionName(region)} is too large for the context window (${detail})`,
      { region, ...figures },
    );
    this.region = region;
  }
}

function regionName(region: FixedRegion): string {
  switch (region) {
    case 'system':
      return 'system prompt';
    case 'toolDefinitions':
      return 'tool definitions region';
    case 'maxOutputTokens':
      return 'output reserve (maxOutputTokens)';
    case 'summary':
      return 'summary';
  }
}

/**
 * A message handed to `append` or `sync` that is not a `MessageInput`: names the message's index and the
 * field, e.g. `messages[2].parts[0].callId`. Nothing of the call was stored.
 */
export class InvalidMessageError extends CtxkitError {
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
