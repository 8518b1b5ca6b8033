/**
 * `subagent` (seed 002): a task run in a context window of its own, a session of its own, whose
 * conclusion alone comes back to the parent. The exploring it does (file reads, searches, command
 * output) fills the child's context and never the parent's; the parent pays only for the answer.
 * A subagent has the parent's tools but not `subagent` itself, so delegation is one level deep.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { ToolDefinition } from '../core/tool-definition.ts';
import type { AgentTool } from './agent-tool.ts';
import { type AgentConfig, runTurn } from './run-turn.ts';

export const SUBAGENT_TOOL = 'subagent';

/** Model calls a subagent may make for one task when the caller does not say. */
export const DEFAULT_SUBAGENT_MAX_STEPS = 15;

/** The instruction wrapped around the task: the child must end with a conclusion that stands alone. */
export const SUBAGENT_SYSTEM_PROMPT =
  'You are a subagent. Do the task you are given with the tools you have, then reply with your ' +
  'conclusion only: what you found or did, with the exact paths, names, figures and errors the ' +
  'requester needs. Your reply is all the requester will see of your work.';

export const subagentTool: ToolDefinition = Object.freeze({
  name: SUBAGENT_TOOL,
  description:
    'Delegate a self-contained task (explore a codebase, read many files, run and read long command ' +
    'output) to a subagent with a fresh context window of its own. Only its conclusion comes back, so ' +
    'use it for work whose details you do not need to keep. Describe the task fully: the subagent sees ' +
    'nothing of this conversation.',
  parameters: Object.freeze({
    type: 'object',
    properties: {
      task: { type: 'string', description: 'The task, complete and self-contained.' },
    },
    required: ['task'],
    additionalProperties: false,
  }),
});

const ArgsSchema = z.object({ task: z.string().trim().min(1) });

export interface SubagentToolOptions {
  /** How the subagent calls its model: the parent's client, model, window and confirm, usually. */
  config: Omit<AgentConfig, 'tools' | 'system' | 'maxSteps'>;
  /** The subagent's tools (the parent's, without `subagent`). */
  tools: readonly AgentTool[];
  maxSteps?: number;
  /** The session id of each task's own session; default `<parent>/subagent-<uuid>`. */
  sessionIdFor?: (parentSessionId: string) => string;
}

export function createSubagentTool(options: SubagentToolOptions): AgentTool {
  const tools = options.tools.filter((tool) => tool.definition.name !== SUBAGENT_TOOL);
  const sessionIdFor =
    options.sessionIdFor ?? ((parent: string) => `${parent.slice(0, 400)}/subagent-${randomUUID()}`);
  return {
    definition: subagentTool,
    async run(args, context) {
      const parsed = ArgsSchema.safeParse(args);
      if (!parsed.success)
        return { content: 'invalid arguments: `task` must be a non-empty string.', isError: true };
      const childId = sessionIdFor(context.sessionId);
      const result = await runTurn(
        {
          ...options.config,
          system: SUBAGENT_SYSTEM_PROMPT,
          tools,
          maxSteps: options.maxSteps ?? DEFAULT_SUBAGENT_MAX_STEPS,
          confirm: context.confirm,
        },
        childId,
        parsed.data.task,
        { signal: context.signal },
      );
      if (result.stopReason === 'aborted') return { content: 'The subagent was cancelled.', isError: true };
      const conclusion = result.text.trim() || '(the subagent gave no conclusion)';
      const note =
        result.stopReason === 'step_limit'
          ? `\n\n[The subagent stopped after ${result.steps} model calls, its step limit, before it finished.]`
          : '';
      return { content: `${conclusion}${note}`, isError: false };
    },
  };
}
