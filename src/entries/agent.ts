/**
 * `ctxkit/agent`: the reference agent on ctxkit (the loop `ctxkit chat` runs, `runTurn`) and the tools an
 * agent offers its model: read back what ctxkit offloaded, memory notes and skills, the workspace (list,
 * read, search; write, edit and run commands when allowed), and `subagent`.
 */

export type * from '../agent/agent-events.ts';
export type * from '../agent/agent-tool.ts';
export * from '../agent/context-tools.ts';
export * from '../agent/memory-tools.ts';
export * from '../agent/read-memory-tool.ts';
export * from '../agent/read-offloaded-tool.ts';
export * from '../agent/read-skill-tool.ts';
export { type AgentConfig, DEFAULT_MAX_STEPS, runTurn, type TurnOptions } from '../agent/run-turn.ts';
export * from '../agent/select-lines.ts';
export * from '../agent/subagent-tool.ts';
export * from '../agent/workspace/workspace-tools.ts';
