/**
 * `write_file`: creates or replaces a file of the workspace with the given text, creating its parent
 * directories. Offered only when writes are allowed; asks the person first (`write src/a.ts (1,204
 * bytes)`), and a refusal writes nothing.
 */

import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { ToolDefinition } from '../../core/tool-definition.ts';
import type { AgentTool, AgentToolContext } from '../agent-tool.ts';
import { writePreview } from './change-preview.ts';
import {
  answering,
  count,
  failure,
  isResult,
  parseToolArgs,
  plural,
  shownPath,
  success,
  WorkspaceToolError,
  type WorkspaceToolResult,
} from './tool-result.ts';
import type { ResolvedPath, Workspace } from './workspace-paths.ts';

export const WRITE_FILE_TOOL = 'write_file';

export const writeFileTool: ToolDefinition = Object.freeze({
  name: WRITE_FILE_TOOL,
  description:
    'Create a file of the workspace, or replace its whole content, with `content`; missing parent ' +
    'directories are created. To change part of an existing file, use edit_file instead. The user may ' +
    'be asked to allow it.',
  parameters: Object.freeze({
    type: 'object',
    properties: {
      path: { type: 'string', description: 'The file, relative to the workspace root.' },
      content: { type: 'string', description: 'The whole new content of the file.' },
    },
    required: ['path', 'content'],
    additionalProperties: false,
  }),
});

const ArgsSchema = z.strictObject({ path: z.string().min(1), content: z.string() });

const EXAMPLE = '{"path": "src/a.ts", "content": "export const a = 1;\\n"}';

export function createWriteFileTool(workspace: Workspace): AgentTool {
  return {
    definition: writeFileTool,
    run: (args, context) => answering(() => writeFile(workspace, args, context)),
  };
}

/** The path as a file to write: inside the workspace, not the root, not a directory. */
async function writableTarget(workspace: Workspace, input: string): Promise<ResolvedPath> {
  const target = await workspace.resolve(input);
  if (target.relative === '.')
    throw new WorkspaceToolError('not_a_file', 'the workspace root is a directory, not a file');
  if (target.exists && (await fs.stat(target.real)).isDirectory())
    throw new WorkspaceToolError('not_a_file', `${shownPath(target.relative)} is a directory`);
  return target;
}

/** Writes `bytes` to the real path `file` (never through a symbolic link), creating or truncating it. */
export async function writeBytes(file: string, bytes: Uint8Array): Promise<void> {
  const handle = await fs
    .open(file, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o666)
    .catch((error: unknown) => {
      if ((error as { code?: unknown }).code === 'ELOOP')
        throw new WorkspaceToolError(
          'invalid_path',
          'the file changed into a symbolic link: nothing was written',
        );
      throw error;
    });
  try {
    await handle.writeFile(bytes);
  } finally {
    await handle.close();
  }
}

const linesIn = (text: string): number =>
  text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

async function writeFile(
  workspace: Workspace,
  args: unknown,
  context: AgentToolContext,
): Promise<WorkspaceToolResult> {
  const parsed = parseToolArgs(ArgsSchema, args, EXAMPLE, 'path');
  if (isResult(parsed)) return parsed;
  const before = await writableTarget(workspace, parsed.path);
  const shown = shownPath(before.relative);
  const bytes = Buffer.from(parsed.content, 'utf8');
  const allowed = await context.confirm({
    tool: WRITE_FILE_TOOL,
    summary: `write ${shown} (${count(bytes.length)} byte${bytes.length === 1 ? '' : 's'})`,
    detail: writePreview(parsed.content),
  });
  if (!allowed) return failure('declined', `the user declined to write ${shown}: nothing was written`);
  if (context.signal.aborted) return failure('aborted', `cancelled: ${shown} was not written`);
  // Checked again: the asking may have taken a while.
  const target = await writableTarget(workspace, parsed.path);
  try {
    await fs.mkdir(path.dirname(target.real), { recursive: true });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'EEXIST' || code === 'ENOTDIR')
      return failure('not_a_directory', `a part of ${shown} is a file, not a directory: nothing was written`);
    throw error;
  }
  await writeBytes(target.real, bytes);
  const verb = target.exists ? 'replaced' : 'created';
  return success(
    `${verb} ${shown} (${count(bytes.length)} bytes, ${plural(linesIn(parsed.content), 'line')})`,
  );
}
