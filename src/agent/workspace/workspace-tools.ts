/**
 * The workspace tools the agent offers its model, confined to one directory: reading (`list_files`,
 * `read_file`, `search_files`) always; `write_file` and `edit_file` only when writes are allowed, and
 * `run_command` only when commands are: a tool that is not allowed is not offered at all, so the model
 * never sees it. Every change asks the person first through the tool context's `confirm`.
 */

import type { AgentTool } from '../agent-tool.ts';
import { createEditFileTool } from './edit-file-tool.ts';
import { createListFilesTool } from './list-files-tool.ts';
import { createReadFileTool } from './read-file-tool.ts';
import { createRunCommandTool, type RunCommandOptions } from './run-command-tool.ts';
import { createSearchFilesTool, type SearchFilesOptions } from './search-files-tool.ts';
import { createWorkspace } from './workspace-paths.ts';
import { createWriteFileTool } from './write-file-tool.ts';

export interface WorkspaceToolsOptions {
  /** The directory every path is confined to; commands run in it. */
  root: string;
  /** Offer write_file and edit_file (default false). */
  allowWrite?: boolean;
  /** Offer run_command (default false). */
  allowCommands?: boolean;
  /** run_command's timeout, output bounds, shell and environment. */
  command?: RunCommandOptions;
  /** search_files's time limits. */
  search?: SearchFilesOptions;
  /** Directories inside the root no tool may list, read or write (the agent's data directory). */
  privatePaths?: readonly string[];
}

export function createWorkspaceTools(options: WorkspaceToolsOptions): AgentTool[] {
  const workspace = createWorkspace(options.root, {
    ...(options.privatePaths ? { privatePaths: options.privatePaths } : {}),
  });
  return [
    createListFilesTool(workspace),
    createReadFileTool(workspace),
    createSearchFilesTool(workspace, options.search),
    ...(options.allowWrite ? [createWriteFileTool(workspace), createEditFileTool(workspace)] : []),
    ...(options.allowCommands ? [createRunCommandTool(workspace, options.command)] : []),
  ];
}
