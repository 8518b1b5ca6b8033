/**
 * The skill read tool (deepagents's progressive disclosure: "every skill's name and description. Skill
 * bodies are not in the context until the agent reads one"): every request lists the skills; this tool
 * reads one skill's instructions, a file beside them, or, with no name, the list of every skill (when
 * the request's index was clipped). Its name is the one the skills index's preamble uses.
 */

import { listSkillsText, READ_SKILL_TOOL } from '../core/context-index/render-skills-index.ts';
import { CtxkitError } from '../core/errors/index.ts';
import type { ToolCallPart, ToolResultPart } from '../core/message.ts';
import { SKILL_NAME_MAX_LENGTH } from '../core/skills/skill-name.ts';
import type { SkillSource } from '../core/skills/skill-source.ts';
import type { ToolDefinition } from '../core/tool-definition.ts';
import { argsObject, clip, pageArgs, pageText, pagingProperties, resultPartFor } from './page-text.ts';

/** Characters returned per call when the model asks for no `limit`: about 10k tokens of instructions. */
export const DEFAULT_READ_SKILL_LIMIT = 40_000;
/** The most a single call may return, whatever `limit` asks. */
export const MAX_READ_SKILL_LIMIT = 100_000;

/** The tool's definition, in ctxkit's own shape (`toOpenAITool` / `toAnthropicTool` convert it). */
export const readSkillTool: ToolDefinition = Object.freeze({
  name: READ_SKILL_TOOL,
  description:
    "Read a skill's instructions before doing a task it covers (the skills index in the system prompt " +
    "lists every skill by name and description). Pass the skill's `name`; add `path` to read a file the " +
    'instructions mention, relative to the skill (e.g. "scripts/fill.py"). With no name, lists every ' +
    'skill. Long files come back a part at a time: call again with the `offset` the previous part ends with.',
  parameters: Object.freeze({
    type: 'object',
    properties: {
      name: {
        type: 'string',
        description: 'The skill\'s name, as the skills index gives it, e.g. "pdf-forms".',
      },
      path: {
        type: 'string',
        description:
          'A file inside the skill\'s directory, e.g. "reference/fields.md" (default: its SKILL.md).',
      },
      ...pagingProperties({ limit: DEFAULT_READ_SKILL_LIMIT, maxLimit: MAX_READ_SKILL_LIMIT }),
    },
    additionalProperties: false,
  }),
});

export type ReadSkillErrorCode = 'invalid_arguments' | 'invalid_path' | 'not_found' | 'invalid_skill';

export interface ReadSkillResult {
  content: string;
  isError: boolean;
  code?: ReadSkillErrorCode;
  totalChars?: number;
  nextOffset?: number;
}

export interface ReadSkillArgs {
  /** Absent: list every skill. */
  name?: string;
  path?: string;
  offset: number;
  limit: number;
}

/**
 * Answers one call of the skill read tool from `skills` (the ContextManager's `skills`; undefined when
 * the agent has none). `args` as the model sent them: JSON text or the parsed object; a bare JSON string
 * is taken as the name. Unknown skills, paths out of a skill and broken skills are error results.
 */
export async function handleReadSkill(
  skills: SkillSource | undefined,
  args: unknown,
): Promise<ReadSkillResult> {
  const parsed = parseReadSkillArgs(args);
  if (typeof parsed === 'string') return failure('invalid_arguments', parsed);
  let content: string;
  try {
    if (parsed.name === undefined) content = listSkillsText(skills ? (await skills.list()).skills : []);
    else if (!skills)
      return failure(
        'not_found',
        `no skill named ${JSON.stringify(clip(parsed.name))}: this agent has no skills`,
      );
    else content = await skills.read(parsed.name, parsed.path);
  } catch (error) {
    const known = knownFailure(error);
    if (known) return known;
    throw error;
  }
  const label =
    parsed.name === undefined ? 'skills' : parsed.path ? `${parsed.name}/${parsed.path}` : parsed.name;
  const paged = pageText(content, {
    ...parsed,
    label,
    nextCall: (offset) =>
      `${READ_SKILL_TOOL}(${JSON.stringify({
        ...(parsed.name !== undefined ? { name: parsed.name } : {}),
        ...(parsed.path !== undefined ? { path: parsed.path } : {}),
        offset,
        limit: parsed.limit,
      })})`,
  });
  if (typeof paged === 'string') return failure('invalid_arguments', paged);
  return { ...paged, isError: false };
}

/** The handler as `(args) => result`, for a tool registry. */
export function createReadSkillHandler(
  skills: SkillSource | undefined,
): (args: unknown) => Promise<ReadSkillResult> {
  return (args) => handleReadSkill(skills, args);
}

/** Whether a tool call is a call of the skill read tool. */
export const isReadSkillCall = (call: Pick<ToolCallPart, 'name'>): boolean => call.name === READ_SKILL_TOOL;

/** Answers a skill read tool call as the tool-result part to append (same call id and name). */
export async function readSkillResultPart(
  skills: SkillSource | undefined,
  call: ToolCallPart,
): Promise<ToolResultPart> {
  return resultPartFor(call, await handleReadSkill(skills, call.args));
}

const EXAMPLE = '{"name": "pdf-forms"}';

/** The arguments, checked; a string is the message explaining what is wrong with them. */
export function parseReadSkillArgs(args: unknown): ReadSkillArgs | string {
  const record = argsObject(args, 'name', EXAMPLE);
  if (typeof record === 'string') return record;
  const unknown = Object.keys(record).filter((key) => !['name', 'path', 'offset', 'limit'].includes(key));
  if (unknown.length > 0)
    return `unknown argument ${clip(unknown.join(', '))}; expected name, path, offset, limit`;
  const { name, path } = record;
  if (typeof name === 'string' && name.length > SKILL_NAME_MAX_LENGTH * 4)
    return `"name" is longer than any skill name (at most ${SKILL_NAME_MAX_LENGTH} characters)`;
  if (name !== undefined && (typeof name !== 'string' || name.trim() === ''))
    return '"name" must be a skill\'s name, e.g. "pdf-forms" (or leave it out to list every skill)';
  if (path !== undefined && (typeof path !== 'string' || path.trim() === ''))
    return '"path" must be a file inside the skill, e.g. "scripts/fill.py"';
  if (path !== undefined && name === undefined) return '"path" needs the "name" of the skill it is in';
  const page = pageArgs(record, { limit: DEFAULT_READ_SKILL_LIMIT, maxLimit: MAX_READ_SKILL_LIMIT });
  if (typeof page === 'string') return page;
  return {
    ...(typeof name === 'string' ? { name: name.trim() } : {}),
    ...(typeof path === 'string' ? { path: path.trim() } : {}),
    ...page,
  };
}

function knownFailure(error: unknown): ReadSkillResult | undefined {
  if (!CtxkitError.isInstance(error)) return undefined;
  switch (error.code) {
    case 'skill_not_found':
      return failure('not_found', `${error.message}; ${READ_SKILL_TOOL} with no name lists every skill`);
    case 'invalid_skill_path':
      return failure('invalid_path', error.message);
    case 'skill_file_not_found':
      return failure('not_found', error.message);
    case 'invalid_skill':
      return failure('invalid_skill', error.message);
    default:
      return undefined;
  }
}

function failure(code: ReadSkillErrorCode, message: string): ReadSkillResult {
  return { content: `Error: ${message}`, isError: true, code };
}
