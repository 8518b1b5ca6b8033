import type { NotApplicable } from './seeds-000-002-harness.ts';

/**
 * Statements of the cowagent, tiancai and deepagents seeds that cannot apply to ctxkit's engine, each with the reason; each seed's
 * conformance file checks its list. Everything ctxkit has built (the SQLite stores, the daily memory file,
 * restore, retention, the read-back tool) is tested in the seed's conformance file instead: keep this list
 * to what cannot apply, or is not built yet.
 */

/** cowagent. */
export const NOT_APPLICABLE_000: readonly NotApplicable[] = [
  {
    statement: 'A single turn may include multiple tool calls (controlled by `agent_max_steps`).',
    reason:
      'The step limit is enforced by the agent loop that makes the calls (src/agent, not built yet); the engine only carries budget.maxSteps = 15 (checked in presets.test.ts). That a turn may hold many tool calls is tested in the seed’s conformance file.',
  },
  {
    statement: 'Configurable via … the `/config` chat command.',
    reason:
      'Chat commands belong to the reference agent (`ctxkit chat`), not built yet. The settings themselves are tested in the seed’s conformance file through the cowagent names (agent_max_context_tokens, agent_max_context_turns) applied to the preset.',
  },
];

/** tiancai. */
export const NOT_APPLICABLE_001: readonly NotApplicable[] = [
  {
    statement: 'Directory: `os.TempDir()/ai_tool_outputs` (where a large output is spilled)',
    reason:
      "ctxkit keeps offloaded outputs in the session's own blob store, on disk under <data>/sessions/<id>/large_tool_results/ (docs/ARCHITECTURE.md: under the session's own directory and nowhere else), never a shared temporary directory another session could read. The saved path and SHA256 in the notice are tested in the seed’s conformance file.",
  },
];

/** deepagents. */
export const NOT_APPLICABLE_002: readonly NotApplicable[] = [
  {
    statement:
      "The system prompt, assembled per session (agent/prompts.py): the harness ground rules, the active simulator's description and domain hints, and runtime context",
    reason:
      'What the system prompt says is the agent’s to assemble; ctxkit takes it per call and never stores it in history. That it reaches the model on every call, unchanged, is tested in the seed’s conformance file.',
  },
  {
    statement: 'result values and error messages are capped at 64 KiB on the kernel side',
    reason: "A cap inside the product's Julia kernel, before output reaches any context manager.",
  },
  {
    statement:
      "The TUI's collapsed tool and reasoning cards are display only. Ctrl+O toggles the full output for you, and the model's context is unaffected either way.",
    reason: 'A terminal UI and its key binding; ctxkit has no TUI.',
  },
  {
    statement:
      "for a local model the num_ctx it was actually loaded with (its reported maximum capped at the memory budget), not the daemon's theoretical maximum",
    reason:
      'Asking a local server which num_ctx it loaded is the provider work’s; the engine measures against the window the caller passes (tested in the seed’s conformance file with a local model loaded at 16k).',
  },
  {
    statement: 'and the bench records it per sample',
    reason:
      'The benchmark harness (bench/) is not the context manager; the model-usage events it would read are tested.',
  },
  {
    statement:
      'The seam exists per simulator (subagent_factories); a general source-exploration subagent (so that browsing installed package source never enters the main context at all) is the planned next step.',
    reason:
      'Subagent factories are the agent’s; session isolation, what a subagent relies on, is tested in the seed’s conformance file.',
  },
  {
    statement: 'The attempt log is never cleared, since the agent refers back to it by value.',
    reason:
      'The attempt log is the product’s own tool, which the preset cannot name; ctxkit keeps any named tool out of clearing with exclude_tools, tested in the seed’s conformance file with an `attempt_log` tool.',
  },
];
