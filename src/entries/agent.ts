/** `ctxkit/agent`: the tools an agent offers its model so it can read back what ctxkit offloaded, its memory notes and its skills. */

export * from '../agent/read-memory-tool.ts';
export * from '../agent/read-offloaded-tool.ts';
export * from '../agent/read-skill-tool.ts';
export * from '../agent/select-lines.ts';
