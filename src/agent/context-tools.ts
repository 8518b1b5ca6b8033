/**
 * ctxkit's context tools as AgentTools, for the agent loop: `read_offloaded` bound to the calling
 * session (another session's ref is answered exactly like an unknown one), `read_memory` when the memory
 * sink keeps files to read, `read_skill` when the agent has skills, and `search_memory` / `write_memory`
 * over the memory sink.
 */

import type { MemorySink } from '../core/memory-sink.ts';
import type { SkillSource } from '../core/skills/skill-source.ts';
import type { AgentTool } from './agent-tool.ts';
import { createMemoryTools } from './memory-tools.ts';
import { handleReadMemory, readMemoryTool } from './read-memory-tool.ts';
import {
  handleReadOffloaded,
  type OffloadedReader,
  type ReadOffloadedOptions,
  readOffloadedTool,
} from './read-offloaded-tool.ts';
import { handleReadSkill, readSkillTool } from './read-skill-tool.ts';

/** What the context tools need of a ContextManager. */
export interface ContextToolsManager extends OffloadedReader {
  readonly memory: MemorySink;
  readonly skills: SkillSource | undefined;
  readonly clock: () => number;
}

export interface ContextToolsOptions {
  manager: ContextToolsManager;
  /** The skills read_skill reads; default the manager's. No skills: no read_skill. */
  skills?: SkillSource;
  /** The memory the memory tools use; default the manager's. `false`: no memory tools. */
  memory?: MemorySink | false;
  /** How read_offloaded sizes its answers for a session (e.g. `{ maxChars: readBackRoom(stats) }`). */
  readOffloaded?: (sessionId: string) => ReadOffloadedOptions;
}

/** Keeps what an AgentTool answers: the content, whether it is an error, and its code when it has one. */
const answer = (result: { content: string; isError: boolean; code?: string }) => ({
  content: result.content,
  isError: result.isError,
  ...(result.code !== undefined ? { code: result.code } : {}),
});

export function createContextTools(options: ContextToolsOptions): AgentTool[] {
  const { manager } = options;
  const skills = options.skills ?? manager.skills;
  const memory = options.memory === undefined ? manager.memory : options.memory;
  const tools: AgentTool[] = [
    {
      definition: readOffloadedTool,
      run: async (args, context) =>
        answer(
          await handleReadOffloaded(
            manager,
            context.sessionId,
            args,
            options.readOffloaded?.(context.sessionId) ?? {},
          ),
        ),
    },
  ];
  if (memory) {
    const readNote = memory.readNote?.bind(memory);
    if (readNote)
      tools.push({
        definition: readMemoryTool,
        run: async (args) => answer(await handleReadMemory({ readMemory: readNote }, args)),
      });
  }
  if (skills)
    tools.push({
      definition: readSkillTool,
      run: async (args) => answer(await handleReadSkill(skills, args)),
    });
  if (memory) tools.push(...createMemoryTools({ memory, clock: manager.clock }));
  return tools;
}
