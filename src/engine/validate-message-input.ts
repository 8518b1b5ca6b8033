import { InvalidMessageError } from '../core/errors/index.ts';
import type { MessageInput, Role } from '../core/message.ts';
import { WorkSlices } from '../core/work-slices.ts';

/**
 * Checks what a library caller hands `append` or `sync` against `MessageInput` (core/message.ts) before
 * anything is stored, so a malformed message is a typed error naming its field
 * (`messages[2].parts[0].callId`), never a `TypeError` halfway through an append.
 *
 * Roles and parts agree as the message model says: a `user` message carries text and media; an
 * `assistant` message text, reasoning, media and tool calls; a `tool` message exactly one tool result.
 * One pass over the messages and their parts, no copies: it runs on every append.
 */

type PartType = 'text' | 'reasoning' | 'media' | 'tool-call' | 'tool-result';

const PARTS_OF: Record<Role, ReadonlySet<PartType>> = {
  user: new Set(['text', 'media']),
  assistant: new Set(['text', 'reasoning', 'media', 'tool-call']),
  tool: new Set(['tool-result']),
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const describe = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;

export function validateMessageInputs(
  messages: unknown,
  argument = 'messages',
): asserts messages is MessageInput[] {
  if (!Array.isArray(messages)) {
    throw new InvalidMessageError(argument, `must be an array of messages, got ${describe(messages)}`);
  }
  for (let index = 0; index < messages.length; index++) {
    validateMessage(messages[index], `${argument}[${index}]`, index);
  }
}

/** `validateMessageInputs` in slices, the event loop getting turns between them (a history of a million). */
export async function validateMessageInputsInSlices(
  messages: unknown,
  argument = 'messages',
  slices: WorkSlices = new WorkSlices(),
): Promise<void> {
  if (!Array.isArray(messages)) {
    throw new InvalidMessageError(argument, `must be an array of messages, got ${describe(messages)}`);
  }
  for (let index = 0; index < messages.length; index++) {
    validateMessage(messages[index], `${argument}[${index}]`, index);
    if (slices.due()) await slices.next();
  }
}

function validateMessage(message: unknown, path: string, index: number): void {
  const fail = (field: string, reason: string): never => {
    throw new InvalidMessageError(field ? `${path}.${field}` : path, reason, index);
  };
  if (!isObject(message)) fail('', `must be a message object, got ${describe(message)}`);
  const value = message as Record<string, unknown>;
  const role = value.role;
  if (role !== 'user' && role !== 'assistant' && role !== 'tool') {
    fail('role', `must be "user", "assistant" or "tool", got ${JSON.stringify(role) ?? 'undefined'}`);
  }
  if (value.id !== undefined && (typeof value.id !== 'string' || value.id === '')) {
    fail('id', 'must be a non-empty string when given');
  }
  if (value.seq !== undefined && (typeof value.seq !== 'number' || !Number.isInteger(value.seq))) {
    fail('seq', 'must be an integer when given');
  }
  if (!Array.isArray(value.parts)) fail('parts', `must be an array, got ${describe(value.parts)}`);
  const parts = value.parts as unknown[];
  const allowed = PARTS_OF[role as Role];
  for (let at = 0; at < parts.length; at++) {
    const part = parts[at];
    const field = `parts[${at}]`;
    if (!isObject(part)) fail(field, `must be a part object, got ${describe(part)}`);
    const type = (part as Record<string, unknown>).type;
    if (typeof type !== 'string' || !(type in PART_CHECKS)) {
      fail(
        `${field}.type`,
        `must be one of ${Object.keys(PART_CHECKS).join(', ')}, got ${JSON.stringify(type) ?? 'undefined'}`,
      );
    }
    if (!allowed.has(type as PartType)) {
      fail(`${field}.type`, `a ${String(role)} message cannot carry a ${String(type)} part`);
    }
    PART_CHECKS[type as PartType](part as Record<string, unknown>, (name, reason) =>
      fail(`${field}.${name}`, reason),
    );
  }
  if (role === 'tool' && parts.length !== 1) {
    fail('parts', `a tool message holds exactly one tool-result part, got ${parts.length} parts`);
  }
  if (value.meta !== undefined) validateMeta(value.meta, (name, reason) => fail(name, reason));
  if (value.usage !== undefined) validateUsage(value.usage, (name, reason) => fail(name, reason));
}

type Fail = (field: string, reason: string) => never;

function requireString(part: Record<string, unknown>, key: string, fail: Fail): void {
  if (typeof part[key] !== 'string') fail(key, `must be a string, got ${describe(part[key])}`);
}

function optionalString(part: Record<string, unknown>, key: string, fail: Fail): void {
  if (part[key] !== undefined && typeof part[key] !== 'string') {
    fail(key, `must be a string when given, got ${describe(part[key])}`);
  }
}

function checkMedia(part: Record<string, unknown>, fail: Fail): void {
  requireString(part, 'mediaType', fail);
  requireString(part, 'ref', fail);
  const tokens = part.tokens;
  if (tokens !== undefined && (typeof tokens !== 'number' || !Number.isFinite(tokens) || tokens < 0)) {
    fail('tokens', 'must be a non-negative number when given');
  }
  optionalString(part, 'detail', fail);
  optionalString(part, 'name', fail);
}

const PART_CHECKS: Record<PartType, (part: Record<string, unknown>, fail: Fail) => void> = {
  text: (part, fail) => requireString(part, 'text', fail),
  reasoning: (part, fail) => {
    requireString(part, 'text', fail);
    optionalString(part, 'signature', fail);
    optionalString(part, 'redactedData', fail);
  },
  media: checkMedia,
  'tool-call': (part, fail) => {
    requireString(part, 'callId', fail);
    requireString(part, 'name', fail);
    requireString(part, 'args', fail);
  },
  'tool-result': (part, fail) => {
    requireString(part, 'callId', fail);
    requireString(part, 'name', fail);
    requireString(part, 'content', fail);
    if (typeof part.isError !== 'boolean')
      fail('isError', `must be a boolean, got ${describe(part.isError)}`);
    if (part.media !== undefined) {
      if (!Array.isArray(part.media))
        fail('media', `must be an array when given, got ${describe(part.media)}`);
      (part.media as unknown[]).forEach((item, at) => {
        if (!isObject(item) || item.type !== 'media') fail(`media[${at}]`, 'must be a media part');
        checkMedia(item as Record<string, unknown>, (name, reason) => fail(`media[${at}].${name}`, reason));
      });
    }
  },
};

function validateMeta(meta: unknown, fail: Fail): void {
  if (!isObject(meta)) fail('meta', `must be an object when given, got ${describe(meta)}`);
  const value = meta as Record<string, unknown>;
  for (const key of ['agentVisible', 'userVisible'] as const) {
    if (value[key] !== undefined && typeof value[key] !== 'boolean')
      fail(`meta.${key}`, 'must be a boolean when given');
  }
  for (const key of ['kind', 'model'] as const) {
    if (value[key] !== undefined && typeof value[key] !== 'string')
      fail(`meta.${key}`, 'must be a string when given');
  }
  if (
    value.createdAt !== undefined &&
    (typeof value.createdAt !== 'number' || !Number.isFinite(value.createdAt))
  ) {
    fail('meta.createdAt', 'must be a finite number of epoch ms when given');
  }
}

function validateUsage(usage: unknown, fail: Fail): void {
  if (!isObject(usage)) fail('usage', `must be an object when given, got ${describe(usage)}`);
  const value = usage as Record<string, unknown>;
  for (const key of [
    'inputTokens',
    'outputTokens',
    'cacheReadTokens',
    'cacheWriteTokens',
    'reasoningTokens',
  ]) {
    const count = value[key];
    const required = key === 'inputTokens' || key === 'outputTokens';
    if (count === undefined && !required) continue;
    if (typeof count !== 'number' || !Number.isFinite(count) || count < 0) {
      fail(`usage.${key}`, `must be a non-negative number${required ? '' : ' when given'}`);
    }
  }
}
