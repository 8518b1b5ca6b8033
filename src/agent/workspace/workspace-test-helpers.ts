/** For the workspace tools' tests: real temporary directories, a tool context, a call by tool name. */

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AgentTool, AgentToolContext, ConfirmRequest } from '../agent-tool.ts';
import type { WorkspaceToolResult } from './tool-result.ts';

/** A fresh directory under the system's temporary directory (its real path), and a way to remove it. */
export function makeTempDir(prefix = 'ctxkit-ws-'): { dir: string; remove: () => void } {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** Writes files under `dir` (parents created): `{ 'src/a.ts': 'text' }`. */
export function writeTree(dir: string, files: Record<string, string | Uint8Array>): void {
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(dir, name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }
}

export interface RecordingContext extends AgentToolContext {
  /** What `confirm` was asked, in order. */
  asked: ConfirmRequest[];
}

export function toolContext(
  options: { allow?: boolean; signal?: AbortSignal; sessionId?: string } = {},
): RecordingContext {
  const asked: ConfirmRequest[] = [];
  return {
    sessionId: options.sessionId ?? 's1',
    signal: options.signal ?? new AbortController().signal,
    asked,
    confirm: async (request) => {
      asked.push(request);
      return options.allow ?? true;
    },
  };
}

/** Runs the tool named `name` of `tools`; fails the test when there is none. */
export async function call(
  tools: readonly AgentTool[],
  name: string,
  args: unknown,
  context: AgentToolContext = toolContext(),
): Promise<WorkspaceToolResult> {
  const tool = tools.find((candidate) => candidate.definition.name === name);
  if (!tool) throw new Error(`no tool ${name} among ${tools.map((t) => t.definition.name).join(', ')}`);
  return tool.run(args, context);
}
