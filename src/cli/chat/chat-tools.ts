import type { AgentTool } from '../../agent/agent-tool.ts';
import { createContextTools } from '../../agent/context-tools.ts';
import type { AgentConfig } from '../../agent/run-turn.ts';
import { createSubagentTool } from '../../agent/subagent-tool.ts';
import { createWorkspaceTools } from '../../agent/workspace/workspace-tools.ts';
import type { ContextManager } from '../../engine/context-manager.ts';

export interface ChatToolsOptions {
  manager: ContextManager;
  /** How the agent calls its model: what a subagent runs with too. */
  config: Omit<AgentConfig, 'tools'>;
  /** The workspace the file and command tools are confined to. */
  root: string;
  allowWrite: boolean;
  allowCommands: boolean;
  /** The environment commands the model runs get, less its secrets; default this process's. */
  env?: NodeJS.ProcessEnv;
}

/** Variable names that hold credentials: the model's commands never see them (its keys least of all). */
export const SECRET_VARIABLE = /(?:API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)$/i;

/** `env` without the variables {@link SECRET_VARIABLE} names. */
export function withoutSecrets(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !SECRET_VARIABLE.test(name)));
}

/**
 * The chat agent's tools: the workspace's (writes and commands only when allowed), ctxkit's context tools
 * (read back offloaded output of this session, memory, skills), and `subagent` over all of them.
 */
export function chatTools(options: ChatToolsOptions): AgentTool[] {
  const own = [
    ...createWorkspaceTools({
      root: options.root,
      allowWrite: options.allowWrite,
      allowCommands: options.allowCommands,
      command: { env: withoutSecrets(options.env ?? process.env) },
    }),
    ...createContextTools({ manager: options.manager }),
  ];
  const { onEvent: _parentEvents, ...config } = options.config;
  return [...own, createSubagentTool({ config, tools: own })];
}
