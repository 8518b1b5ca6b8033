/**
 * ctxkit under a preset, through the replay engine's own `replayWithCtxkit`, with its model-backed
 * summarizer (the structured prompt, bounded input, parsed reply) talking to the bench's summary model:
 * every system's summaries come from the same source. The summarizer's input bound is what the engine
 * gives an agent's own model of this window: 80 % of (window − reply reserve).
 */
import type { Transcript } from '../../src/core/message.ts';
import type { PresetName } from '../../src/core/policy/presets/index.ts';
import { ctxkitEngine } from './ctxkit-engine.ts';
import type { PeerReplay, PeerReplayOptions } from './peer-types.ts';
import { RecordedSession } from './recorded-session.ts';
import { SUMMARY_MODEL_NAME, summaryModelClient } from './summary-model-client.ts';

export const ctxkitSystemName = (preset: PresetName): string => `ctxkit:${preset}`;

/** The share of the usable window the summarizer's own input may take (the engine's `inputBudget`). */
const SUMMARY_INPUT_SHARE = 0.8;

export async function replayWithCtxkitPreset(
  preset: PresetName,
  transcript: Transcript,
  options: PeerReplayOptions,
): Promise<PeerReplay> {
  const { PRESETS, replayWithCtxkit, createModelSummarizer, from } = ctxkitEngine();
  const policy = PRESETS[preset];
  const maxInputTokens =
    policy.summarize.inputMaxTokens > 0
      ? policy.summarize.inputMaxTokens
      : Math.max(1_000, Math.floor((options.contextWindow - options.maxOutputTokens) * SUMMARY_INPUT_SHARE));
  const summarizer = createModelSummarizer({
    client: summaryModelClient(options.summaryModel),
    model: SUMMARY_MODEL_NAME,
    maxInputTokens,
  });
  // The summary model's own time is the model's, not ctxkit's: taken off each call as the peers do.
  const busyAtCall: number[] = [];
  const replay = await replayWithCtxkit(transcript, policy, {
    contextWindow: options.contextWindow,
    maxOutputTokens: options.maxOutputTokens,
    tools: new RecordedSession(transcript).toolDefinitions(),
    summaries: 'model',
    summarizer,
    ...(options.model ? { model: options.model } : {}),
    onCall: () => busyAtCall.push(options.summaryModel.busyMs),
  });
  let busyBefore = 0;
  const requests = replay.requests.map((request, index) => {
    const busy = busyAtCall[index] ?? busyBefore;
    const timeMs = Math.max(0, request.timeMs - (busy - busyBefore));
    busyBefore = busy;
    return { ...request, timeMs };
  });
  return {
    requests,
    finalMemory: replay.finalMemory,
    config: {
      preset,
      ctxkitFrom: from,
      model: options.model ?? null,
      summarizer: `model:${SUMMARY_MODEL_NAME}`,
      summaryInputTokens: maxInputTokens,
    },
    notes: [],
  };
}
