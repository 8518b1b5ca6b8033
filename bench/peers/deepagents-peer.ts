/**
 * deepagents JS: `createDeepAgent` as its docs set it up (docs.langchain.com/oss/javascript/deepagents,
 * "Context management", "Backends" and the quickstart): the model, the session's tools and system
 * prompt, a checkpointer and the state backend, nothing else. Its context handling is the built-in stack: FilesystemMiddleware evicts
 * results over 20k tokens to `/large_tool_results/…`, SummarizationMiddleware summarizes at 85 % of the
 * profile's `maxInputTokens` keeping 10 % (and truncates old write/edit arguments), offloading the
 * summarized messages to `/conversation_history/<session>.md`, PatchToolCallsMiddleware closes dangling
 * calls. It summarizes with the agent's own model, so the replay model hands prompts that are deepagents'
 * summarization prompt to the bench's summary model.
 */
import { HumanMessage } from '@langchain/core/messages';
import { MemorySaver } from '@langchain/langgraph';
import { createDeepAgent, StateBackend } from 'deepagents';
import type { Transcript } from '../../src/core/message.ts';
import { collectPointers, requestText } from '../../src/replay/locate-facts.ts';
import type { FinalMemory, ReplayedRequest } from '../../src/replay/replay-types.ts';
import {
  createDriverMiddleware,
  createReplayTools,
  driveAgent,
  type InvokableAgent,
  REPLAY_THREAD,
} from './langchain-driver.ts';
import { contentText } from './langchain-messages.ts';
import { type PeerReplay, type PeerReplayOptions, systemPromptOf } from './peer-types.ts';
import { RecordedSession } from './recorded-session.ts';
import { ReplayChatModel, ReplayPlayer } from './replay-chat-model.ts';

export const DEEPAGENTS_PEER = 'deepagents';

/** Tool names deepagents reserves for its own tools (a session tool of that name is renamed). */
const BUILT_IN_TOOLS = new Set([
  'ls',
  'read_file',
  'write_file',
  'edit_file',
  'delete',
  'glob',
  'grep',
  'execute',
  'task',
]);

/** deepagents' summarization request: one human message holding its summary prompt. */
function isDeepAgentsSummaryPrompt(messages: readonly { content: unknown }[]): boolean {
  if (messages.length !== 1 || !HumanMessage.isInstance(messages[0])) return false;
  const text = contentText(messages[0].content);
  return text.startsWith('You are a conversation summarizer.') && text.includes('Conversation to summarize:');
}

interface FileData {
  content: string | string[];
}

export async function replayWithDeepAgents(
  transcript: Transcript,
  options: PeerReplayOptions,
): Promise<PeerReplay> {
  const session = new RecordedSession(transcript);
  const player = new ReplayPlayer(session, options.summaryModel, options);
  const notes: string[] = [];
  const rename = (name: string): string => (BUILT_IN_TOOLS.has(name) ? `session_${name}` : name);
  for (const name of session.toolNames) {
    if (rename(name) !== name)
      notes.push(`session tool "${name}" renamed "${rename(name)}" (deepagents owns it)`);
  }
  player.renameTool = rename;
  const checkpointer = new MemorySaver();
  const model = new ReplayChatModel({ player, role: 'agent', isSummaryPrompt: isDeepAgentsSummaryPrompt });
  const agent = createDeepAgent({
    model,
    tools: createReplayTools(player, notes, rename),
    systemPrompt: systemPromptOf(transcript),
    checkpointer,
    // The zero-argument StateBackend of the backends page. The default (a factory) drops the summary's
    // history offload in deepagents 1.14.1: the summary names a file that is never written.
    backend: new StateBackend(),
    middleware: [createDriverMiddleware(player)],
  });
  await driveAgent(agent as unknown as InvokableAgent, player);
  // The run ends right after the last recorded call's tools: its files are what the agent can read.
  const final = await checkpointer.getTuple({ configurable: { thread_id: REPLAY_THREAD } });
  const state = (final?.checkpoint.channel_values ?? {}) as Record<string, unknown>;
  return {
    requests: player.calls.map((call) => call.request),
    finalMemory: await finalMemory(state, player.latestSummary, player.calls.at(-1)?.request),
    config: {
      package: 'deepagents',
      createDeepAgent: ['model', 'tools', 'systemPrompt', 'checkpointer', 'backend: new StateBackend()'],
      profile: { maxInputTokens: options.contextWindow, maxOutputTokens: options.maxOutputTokens },
    },
    notes,
  };
}

/**
 * The summary in effect, and the files of the agent's virtual filesystem (offloaded history, evicted
 * results) that the last request or the summary names, so the agent can `read_file` them.
 */
async function finalMemory(
  state: Record<string, unknown>,
  summary: string,
  last: ReplayedRequest | undefined,
): Promise<FinalMemory> {
  const files = (state.files ?? {}) as Record<string, FileData>;
  const texts = [summary, ...(last ? [requestText(last)] : [])];
  const read = async (ref: string) => {
    const content = files[ref]?.content ?? '';
    return Array.isArray(content) ? content.join('\n') : String(content);
  };
  const pointers = await collectPointers(texts, Object.keys(files), read);
  // Every file is one read_file away once a request names its path (evicted results, the history file).
  const readable = await Promise.all(
    Object.keys(files).map(async (ref) => ({ ref, content: await read(ref) })),
  );
  return { summary, pointers, readable };
}
