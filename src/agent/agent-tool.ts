import type { ToolDefinition } from '../core/tool-definition.ts';

/** What a tool may ask of the agent running it. */
export interface AgentToolContext {
  /** The session the call belongs to: context tools read this session's content and no other's. */
  sessionId: string;
  /** Aborted when the person cancels the call in flight (Ctrl-C); long work stops and says so. */
  signal: AbortSignal;
  /**
   * Asks the person before a change to their workspace (a write, an edit, a command). Resolves true when
   * allowed; `--yes` answers true without asking.
   */
  confirm(request: ConfirmRequest): Promise<boolean>;
}

export interface ConfirmRequest {
  tool: string;
  /** One line saying what would happen: `write src/a.ts (1,204 bytes)`, `run: npm test`. */
  summary: string;
  /** What the change is, for the person to judge it: the start of a file's content, the text replaced. */
  detail?: string;
}

/** A tool's answer: what goes back to the model as the tool result. */
export interface AgentToolResult {
  content: string;
  isError: boolean;
}

/** A tool the agent offers its model: its definition, and what runs when the model calls it. */
export interface AgentTool {
  definition: ToolDefinition;
  /** `args` is the call's arguments parsed from JSON (the loop answers unparsable ones itself). */
  run(args: unknown, context: AgentToolContext): Promise<AgentToolResult>;
}
