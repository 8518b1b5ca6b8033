/**
 * LangChain.js v1: `createAgent` with `summarizationMiddleware` and `contextEditingMiddleware`
 * (`ClearToolUsesEdit`), configured as LangChain's middleware docs show
 * (docs.langchain.com/oss/javascript/langchain/middleware/built-in, "Summarization" and "Context editing"):
 *
 * - summarization: the docs' fractional example, `trigger: { fraction: 0.8 }, keep: { fraction: 0.3 }`,
 *   sized from the model profile's `maxInputTokens` (the docs' tip: set the profile when the provider
 *   data lacks it); everything else default (character-count token estimate, `trimTokensToSummarize`
 *   4000, LangChain's summary prompt);
 * - context editing: `ClearToolUsesEdit` with its documented defaults (keep the 3 newest results,
 *   `[cleared]` placeholder, tool inputs kept, approximate counting); its trigger, 100k tokens by default,
 *   scaled to the window as `{ fraction: 0.6 }`, the figure deepagents wires this same middleware with, so
 *   clearing (cheap) runs before summarization (a model call);
 * - a checkpointer (`MemorySaver`) and one thread per session, as the short-term memory docs show.
 */
import { MemorySaver } from '@langchain/langgraph';
import { ClearToolUsesEdit, contextEditingMiddleware, createAgent, summarizationMiddleware } from 'langchain';
import type { Transcript } from '../../src/core/message.ts';
import {
  createDriverMiddleware,
  createReplayTools,
  driveAgent,
  type InvokableAgent,
} from './langchain-driver.ts';
import { type PeerReplay, type PeerReplayOptions, systemPromptOf } from './peer-types.ts';
import { RecordedSession } from './recorded-session.ts';
import { ReplayChatModel, ReplayPlayer } from './replay-chat-model.ts';

export const LANGCHAIN_PEER = 'langchain';

export const LANGCHAIN_CONFIG = {
  summarization: { trigger: { fraction: 0.8 }, keep: { fraction: 0.3 } },
  clearToolUses: { trigger: { fraction: 0.6 }, keep: { messages: 3 } },
} as const;

export async function replayWithLangChain(
  transcript: Transcript,
  options: PeerReplayOptions,
): Promise<PeerReplay> {
  const session = new RecordedSession(transcript);
  const player = new ReplayPlayer(session, options.summaryModel, options);
  const notes: string[] = [];
  const model = new ReplayChatModel({ player, role: 'agent' });
  const summaryModel = new ReplayChatModel({ player, role: 'summary' });
  const agent = createAgent({
    model,
    tools: createReplayTools(player, notes),
    systemPrompt: systemPromptOf(transcript),
    checkpointer: new MemorySaver(),
    middleware: [
      createDriverMiddleware(player),
      summarizationMiddleware({ model: summaryModel, ...LANGCHAIN_CONFIG.summarization }),
      contextEditingMiddleware({ edits: [new ClearToolUsesEdit({ ...LANGCHAIN_CONFIG.clearToolUses })] }),
    ],
  });
  await driveAgent(agent as unknown as InvokableAgent, player);
  return {
    requests: player.calls.map((call) => call.request),
    // The summary is a message in the view; naming it lets retention tell summary from verbatim history.
    finalMemory: { summary: player.latestSummary, pointers: [] },
    config: {
      package: 'langchain',
      ...LANGCHAIN_CONFIG,
      profile: { maxInputTokens: options.contextWindow, maxOutputTokens: options.maxOutputTokens },
    },
    notes,
  };
}
