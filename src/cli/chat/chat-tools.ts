import type { AgentEvent } from '../../agent/agent-events.ts';
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
  /** Directories no tool may list, read or write: the chat's data directory. */
  privatePaths?: readonly string[];
}

/**
 * Variable names that hold credentials: the model's commands never see them (its keys least of all).
 * Any name with KEY, TOKEN, SECRET, PASSWORD, PASSWD, CREDENTIAL, AUTH or COOKIE in it, as a word.
 */
export const SECRET_VARIABLE =
  /(?:^|_)(?:[A-Z]*KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|CREDENTIALS?|AUTH|COOKIE|SESSION)(?:_|$)/i;

/** A value carrying credentials in a URL (`postgres://user:pass@host`). */
const CREDENTIALS_IN_URL = /^[a-z][a-z0-9+.-]*:\/\/[^/@\s]*:[^/@\s]*@/i;

/** `env` without the variables {@link SECRET_VARIABLE} names, nor any whose value is a URL with a password. */
export function withoutSecrets(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(env).filter(
      ([name, value]) => !SECRET_VARIABLE.test(name) && !CREDENTIALS_IN_URL.test(value ?? ''),
    ),
  );
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
      ...(options.privatePaths ? { privatePaths: options.privatePaths } : {}),
    }),
    ...createContextTools({ manager: options.manager }),
  ];
  const { onEvent: parentEvents, ...config } = options.config;
  // What a subagent does shows under the parent's call, its tool calls and results marked as its own;
  // its text stays its own (only the conclusion comes back).
  const subagentEvents = (event: AgentEvent) => {
    if (event.type === 'tool-call' || event.type === 'tool-result')
      parentEvents?.({ ...event, name: `subagent › ${event.name}` });
  };
  return [...own, createSubagentTool({ config: { ...config, onEvent: subagentEvents }, tools: own })];
}
