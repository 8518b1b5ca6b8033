/**
 * What the workspace tools answer, and how they read their arguments. Every refusal is a result the
 * model can read and act on (`Error: …` with a stable `code`), never a throw: only a failing disk throws,
 * and the agent loop turns that into a result too.
 */

import type { z } from 'zod';
import { CtxkitError, type ErrorCode } from '../../core/errors/index.ts';
import type { AgentToolResult } from '../agent-tool.ts';
import { argsObject, clip } from '../page-text.ts';

/** Why a workspace tool refused or failed, as a stable code (the text says it to the model). */
export type WorkspaceErrorCode =
  | 'invalid_arguments'
  | 'invalid_path'
  | 'outside_workspace'
  | 'not_found'
  | 'not_a_file'
  | 'not_a_directory'
  | 'binary_file'
  | 'too_large'
  | 'no_match'
  | 'ambiguous_match'
  | 'changed'
  | 'declined'
  | 'timed_out'
  | 'aborted'
  | 'failed';

export interface WorkspaceToolResult extends AgentToolResult {
  /** Set on errors. */
  code?: WorkspaceErrorCode;
}

/**
 * A refusal raised deep inside a tool (path confinement, a file that is not text), answered as a result.
 * `resultCode` is the code the result carries (`WorkspaceToolResult.code`).
 */
export class WorkspaceToolError extends CtxkitError {
  static override readonly code: ErrorCode = 'workspace_tool_refused';
  readonly resultCode: WorkspaceErrorCode;
  constructor(resultCode: WorkspaceErrorCode, message: string) {
    super('workspace_tool_refused', message, { resultCode });
    this.resultCode = resultCode;
  }
}

export const success = (content: string): WorkspaceToolResult => ({ content, isError: false });

export const failure = (code: WorkspaceErrorCode, message: string): WorkspaceToolResult => ({
  content: `Error: ${message}`,
  isError: true,
  code,
});

/** Runs `body`, answering a WorkspaceToolError (and a missing or inaccessible file) as an error result. */
export async function answering(body: () => Promise<WorkspaceToolResult>): Promise<WorkspaceToolResult> {
  try {
    return await body();
  } catch (error) {
    if (WorkspaceToolError.isInstance(error)) return failure(error.resultCode, error.message);
    const code = (error as { code?: unknown } | null)?.code;
    if (code === 'ENOENT') return failure('not_found', 'no such file or directory');
    if (code === 'EACCES' || code === 'EPERM') return failure('failed', 'permission denied');
    if (code === 'EISDIR') return failure('not_a_file', 'that path is a directory');
    if (code === 'ENOTDIR') return failure('not_a_directory', 'a part of that path is not a directory');
    throw error;
  }
}

/**
 * The call's arguments checked against `schema` (a strict zod object): the parsed value, or an
 * `invalid_arguments` result naming the field at fault. JSON text is parsed first and a bare string stands
 * for the `bare` field, as the other read tools take them.
 */
export function parseToolArgs<T>(
  schema: z.ZodType<T>,
  args: unknown,
  example: string,
  bare: string,
): T | WorkspaceToolResult {
  // The loop hands over parsed JSON: a plain string is the bare field itself, JSON text is parsed.
  const record =
    typeof args === 'string' && !isJsonText(args) ? { [bare]: args } : argsObject(args, bare, example);
  if (typeof record === 'string') return failure('invalid_arguments', record);
  const parsed = schema.safeParse(record);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  if (!issue) return failure('invalid_arguments', `arguments must be an object like ${example}`);
  if (issue.code === 'unrecognized_keys')
    return failure(
      'invalid_arguments',
      `unknown argument ${clip(issue.keys.map((key) => JSON.stringify(key)).join(', '))}; arguments look like ${example}`,
    );
  const field = issue.path.map(String).join('.') || 'arguments';
  const received = issue.code === 'invalid_type' && /received undefined$/.test(issue.message);
  const message = received ? ' is required' : `: ${issue.message.replace(/^Invalid input: /, '')}`;
  return failure('invalid_arguments', `"${clip(field)}"${message}`);
}

function isJsonText(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

export const isResult = (value: unknown): value is WorkspaceToolResult =>
  typeof value === 'object' && value !== null && 'isError' in value && 'content' in value;

/** 1204 → "1,204". */
export const count = (value: number): string => value.toLocaleString('en-US');

/** A path as the model and the person see it: quoted when it holds control characters or is empty. */
export function shownPath(relative: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for.
  return relative === '' || /[\u0000-\u001f\u007f\u2028\u2029]/.test(relative)
    ? JSON.stringify(relative)
    : relative;
}

/** `1 line` / `2 lines`. */
export const plural = (value: number, singular: string, pluralForm = `${singular}s`): string =>
  `${count(value)} ${value === 1 ? singular : pluralForm}`;
