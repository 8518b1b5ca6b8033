/**
 * `edit_file`: replaces one exact occurrence of a text in a file of the workspace. The old text must
 * occur exactly once; otherwise nothing changes and the answer says how many times it occurs (and where),
 * so the model can add context. Offered only when writes are allowed; asks the person first
 * (`edit src/a.ts`). The file is read again after the asking, and left alone if it changed meanwhile.
 */

import { z } from 'zod';
import type { ToolDefinition } from '../../core/tool-definition.ts';
import type { AgentTool, AgentToolContext } from '../agent-tool.ts';
import { editPreview } from './change-preview.ts';
import { openTextFile } from './open-text-file.ts';
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
import type { Workspace } from './workspace-paths.ts';
import { writeBytes } from './write-file-tool.ts';

export const EDIT_FILE_TOOL = 'edit_file';

/** Files larger than this are not edited (write_file can still replace them whole). */
export const MAX_EDIT_FILE_BYTES = 10 * 1024 * 1024;

export const editFileTool: ToolDefinition = Object.freeze({
  name: EDIT_FILE_TOOL,
  description:
    'Change part of a text file of the workspace: `oldText` (copied exactly from the file, whitespace ' +
    'included, without line numbers) is replaced by `newText`. `oldText` must occur exactly once in ' +
    'the file: include enough surrounding lines to make it unique. The user may be asked to allow it.',
  parameters: Object.freeze({
    type: 'object',
    properties: {
      path: { type: 'string', description: 'The file, relative to the workspace root.' },
      oldText: { type: 'string', description: 'The exact text to replace; it must occur once.' },
      newText: { type: 'string', description: 'The text to put in its place.' },
    },
    required: ['path', 'oldText', 'newText'],
    additionalProperties: false,
  }),
});

const ArgsSchema = z.strictObject({
  path: z.string().min(1),
  oldText: z.string().min(1),
  newText: z.string(),
});

const EXAMPLE = '{"path": "src/a.ts", "oldText": "const a = 1;", "newText": "const a = 2;"}';

export function createEditFileTool(workspace: Workspace): AgentTool {
  return {
    definition: editFileTool,
    run: (args, context) => answering(() => editFile(workspace, args, context)),
  };
}

/** The file's text, refused when too large or not valid UTF-8 (an edit would change bytes elsewhere). */
async function readForEdit(
  workspace: Workspace,
  input: string,
): Promise<{ text: string; relative: string; real: string }> {
  const file = await openTextFile(workspace, input);
  try {
    const shown = shownPath(file.relative);
    if (file.size > MAX_EDIT_FILE_BYTES)
      throw new WorkspaceToolError(
        'too_large',
        `${shown} is larger than ${count(MAX_EDIT_FILE_BYTES)} bytes: it cannot be edited in place`,
      );
    const bytes = await file.handle.readFile();
    const text = bytes.toString('utf8');
    if (!Buffer.from(text, 'utf8').equals(bytes))
      throw new WorkspaceToolError(
        'binary_file',
        `${shown} is not valid UTF-8 text: editing it would change bytes outside the edit`,
      );
    return { text, relative: file.relative, real: file.real };
  } finally {
    await file.handle.close();
  }
}

/** Where `needle` starts in `text`, overlapping occurrences included, up to `max` of them. */
function occurrences(text: string, needle: string, max: number): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(needle); at !== -1 && found.length < max; at = text.indexOf(needle, at + 1))
    found.push(at);
  return found;
}

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let at = text.indexOf('\n'); at !== -1 && at < index; at = text.indexOf('\n', at + 1)) line++;
  return line;
}

/** Why the old text was not found, when a near miss explains it. */
function nearMiss(text: string, oldText: string): string {
  if (oldText.includes('\n') && !oldText.includes('\r\n') && text.includes('\r\n'))
    return ' (the file ends its lines with \\r\\n)';
  if (oldText.trim() !== '' && oldText.trim() !== oldText && text.includes(oldText.trim()))
    return ' exactly (it does occur with different leading or trailing whitespace)';
  if (text.toLowerCase().includes(oldText.toLowerCase()))
    return ' exactly (it does occur with different case)';
  return '';
}

async function editFile(
  workspace: Workspace,
  args: unknown,
  context: AgentToolContext,
): Promise<WorkspaceToolResult> {
  const parsed = parseToolArgs(ArgsSchema, args, EXAMPLE, 'path');
  if (isResult(parsed)) return parsed;
  if (parsed.oldText === parsed.newText)
    return failure('invalid_arguments', '"newText" is the same as "oldText": there is nothing to change');
  const before = await readForEdit(workspace, parsed.path);
  const shown = shownPath(before.relative);
  const found = occurrences(before.text, parsed.oldText, 1_000);
  if (found.length === 0)
    return failure(
      'no_match',
      `the old text does not occur in ${shown}${nearMiss(before.text, parsed.oldText)}: nothing was changed; read the file and copy the text exactly`,
    );
  if (found.length > 1) {
    const lines = found.slice(0, 10).map((at) => lineAt(before.text, at));
    const times = found.length >= 1_000 ? 'at least 1,000 times' : `${count(found.length)} times`;
    return failure(
      'ambiguous_match',
      `the old text occurs ${times} in ${shown} (at lines ${lines.join(', ')}${found.length > 10 ? ', …' : ''}), it must occur exactly once: nothing was changed; include more of the surrounding text`,
    );
  }
  const allowed = await context.confirm({
    tool: EDIT_FILE_TOOL,
    summary: `edit ${shown} (line ${lineAt(before.text, found[0] ?? 0)})`,
    detail: editPreview(parsed.oldText, parsed.newText),
  });
  if (!allowed) return failure('declined', `the user declined the edit of ${shown}: nothing was changed`);
  if (context.signal.aborted) return failure('aborted', `cancelled: ${shown} was not changed`);
  const now = await readForEdit(workspace, parsed.path);
  if (now.text !== before.text || now.real !== before.real)
    return failure(
      'changed',
      `${shown} changed while the user was asked: nothing was changed; read it again`,
    );
  const at = found[0] as number;
  const edited = before.text.slice(0, at) + parsed.newText + before.text.slice(at + parsed.oldText.length);
  await writeBytes(now.real, Buffer.from(edited, 'utf8'));
  const line = lineAt(before.text, at);
  const oldLines = parsed.oldText.split('\n').length;
  const newLines = parsed.newText.split('\n').length;
  return success(
    `edited ${shown}: ${plural(oldLines, 'line')} from line ${count(line)} replaced by ${plural(newLines, 'line')}`,
  );
}
