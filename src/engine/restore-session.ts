import type { CompactionSnapshot, Edit } from '../core/edit.ts';
import type { MemorySink } from '../core/memory-sink.ts';
import type { Message } from '../core/message.ts';
import type { Policy } from '../core/policy/policy-schema.ts';
import { DEFAULT_TOOL_INJECTION, type ToolDefinition, toolInjectionOf } from '../core/tool-definition.ts';
import { splitTurns } from '../core/turns/parse-turn-boundaries.ts';
import type { View } from '../core/view/project-view.ts';
import type { SessionRuntime } from './session-runtime.ts';

/** Tool-call examples a snapshot keeps (digitorn: "recent tool call shapes"). */
export const SNAPSHOT_TOOL_EXAMPLES = 3;
export const SNAPSHOT_MEMORY_NOTES = 5;
export const SNAPSHOT_ARGS_MAX_CHARS = 300;

/** What the agent has now, for a compaction to record (digitorn's _snapshot_tools, _snapshot_memory, _extract_tool_examples). */
export async function takeSnapshot(
  runtime: SessionRuntime,
  tools: readonly ToolDefinition[],
  memory: MemorySink,
): Promise<CompactionSnapshot> {
  const examples: CompactionSnapshot['toolExamples'] = [];
  const seen = new Set<string>();
  for (
    let index = runtime.view.entries.length - 1;
    index >= 0 && examples.length < SNAPSHOT_TOOL_EXAMPLES;
    index--
  ) {
    for (const part of runtime.view.entries[index]?.message.parts ?? []) {
      if (part.type !== 'tool-call' || seen.has(part.name)) continue;
      seen.add(part.name);
      examples.push({ name: part.name, args: part.args.slice(0, SNAPSHOT_ARGS_MAX_CHARS) });
    }
  }
  const notes = await memory.search(runtime.id, '');
  return {
    tools: tools.map((tool, index) => ({
      name: tool.name,
      description: (tool.description ?? '').split('\n')[0] ?? '',
      injection: toolInjectionOf(tool, index),
    })),
    memory: notes.slice(0, SNAPSHOT_MEMORY_NOTES).map((note) => note.title),
    toolExamples: examples,
  };
}

/** The resume note's heading for the tools of each injection mode: what the agent does to call them. */
export const RESUME_TOOL_HEADINGS: Readonly<Record<'called-by-name' | 'discovery', string>> = {
  'called-by-name': 'Tools available (call them directly by name):',
  discovery: 'Tools available through discovery (look each one up with the tool search before calling it):',
};

/**
 * The system note a resumed session starts with (digitorn's build_system_note_from_payload). Tools are
 * grouped by how they reach the model, as digitorn's note tells a `direct` agent to call its tools by
 * name and a `discovery` agent to rediscover them first: told the wrong way, a resumed agent calls a tool
 * it cannot see, or searches for one it has.
 */
export function systemNoteFromSnapshot(snapshot: CompactionSnapshot): string {
  const lines = ['[Session resumed] Context from before the restart:'];
  const line = (tool: CompactionSnapshot['tools'][number]) =>
    `- ${tool.name}${tool.description ? `: ${tool.description}` : ''}`;
  const discovered = (tool: CompactionSnapshot['tools'][number]) =>
    (tool.injection ?? DEFAULT_TOOL_INJECTION) === 'discovery';
  const byName = snapshot.tools.filter((tool) => !discovered(tool));
  const throughDiscovery = snapshot.tools.filter(discovered);
  if (byName.length > 0) lines.push(RESUME_TOOL_HEADINGS['called-by-name'], ...byName.map(line));
  if (throughDiscovery.length > 0) lines.push(RESUME_TOOL_HEADINGS.discovery, ...throughDiscovery.map(line));
  if (snapshot.memory.length > 0)
    lines.push('Memory notes:', ...snapshot.memory.map((title) => `- ${title}`));
  if (snapshot.toolExamples.length > 0) {
    lines.push(
      'Recent tool calls:',
      ...snapshot.toolExamples.map((example) => `- ${example.name}(${example.args})`),
    );
  }
  return lines.join('\n');
}

/**
 * The resume note in the view, when its newest cut is a snapshot restore (digitorn's memory and tool
 * snapshot, replayed): what stats report as `memory`. Undefined otherwise (a drop's context reminder is
 * part of the summary).
 */
export function snapshotNoteOf(view: Pick<View, 'cut' | 'reminder'>): string | undefined {
  return view.cut?.type === 'drop' && view.cut.layer === 'restore' ? view.reminder : undefined;
}

/**
 * The edits a restore makes, per the policy's restore mode, over a session just loaded from its store:
 * - `full` (deepagents, default): none; the view is exactly what it was;
 * - `text` (cowagent): the most recent max(minTurns, trim.maxTurns / turnDivisor) turns, each reduced to its
 *   user text and final reply;
 * - `snapshot` (digitorn): the newest compaction snapshot replayed as a note, so the agent picks up with
 *   the same tools, memory and tool-call examples.
 */
export function restoreEdits(
  runtime: SessionRuntime,
  policy: Policy,
  at: number,
  newId: () => string,
): Edit[] {
  const { restore, trim } = policy;
  const base = {
    at,
    layer: 'restore' as const,
    reason: 'session_restored' as const,
    tokensBefore: runtime.historyTokens,
    tokensAfter: runtime.historyTokens,
  };
  if (restore.mode === 'text') {
    const messages: Message[] = runtime.view.entries
      .filter((entry) => entry.sourceSeq !== undefined)
      .map((entry) => entry.message);
    const turns = splitTurns(messages);
    const keep = Math.max(restore.minTurns, Math.floor(trim.maxTurns / restore.turnDivisor));
    const kept = turns.slice(-keep);
    const first = kept[0] ? messages[kept[0].start] : undefined;
    const last = messages.at(-1);
    if (!first || !last) return [];
    const edits: Edit[] = [];
    if (kept.length < turns.length)
      edits.push({ ...base, id: newId(), type: 'drop', throughSeq: first.seq - 1 });
    edits.push({ ...base, id: newId(), type: 'compress-text', fromSeq: first.seq, throughSeq: last.seq });
    return edits;
  }
  if (restore.mode === 'snapshot') {
    const snapshot = [...runtime.edits]
      .reverse()
      .map((edit) => (edit.type === 'summarize' || edit.type === 'drop' ? edit.snapshot : undefined))
      .find((found) => found !== undefined);
    if (!snapshot) return [];
    return [
      {
        ...base,
        id: newId(),
        type: 'drop',
        throughSeq: runtime.view.cut?.throughSeq ?? -1,
        reminder: systemNoteFromSnapshot(snapshot),
      },
    ];
  }
  return [];
}
