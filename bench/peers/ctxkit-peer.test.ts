import { describe, expect, it } from 'vitest';
import { replayWithCtxkitPreset } from './ctxkit-peer.ts';
import { assistantIndexes, shortSession, toolResults } from './peer-test-support.ts';
import { createSummaryModel } from './summary-model.ts';

describe('replayWithCtxkitPreset', () => {
  const transcript = shortSession();

  it('records one request per assistant message with the recorded tool results', async () => {
    // A preset that keeps results verbatim at this size (default offloads stale ones behind pointers).
    const replay = await replayWithCtxkitPreset('deepagents', transcript, {
      contextWindow: 128_000,
      maxOutputTokens: 4_096,
      summaryModel: createSummaryModel(),
    });
    expect(replay.requests.map((request) => request.messageIndex)).toEqual(assistantIndexes(transcript));
    const last = replay.requests.at(-1);
    expect(toolResults(last?.messages ?? [])).toEqual(
      toolResults(transcript.messages.slice(0, last?.messageIndex)),
    );
    expect(last?.tools.map((tool) => tool.name)).toEqual(['bash']);
  });

  it('summarizes through its model-backed summarizer talking to the bench summary model', async () => {
    const summaryModel = createSummaryModel();
    // The deepagents preset summarizes this short session at 3.5k (85 % of the whole window); `default` gets by with cheaper layers.
    const replay = await replayWithCtxkitPreset('deepagents', transcript, {
      contextWindow: 3_500,
      maxOutputTokens: 500,
      summaryModel,
    });
    expect(replay.requests).toHaveLength(assistantIndexes(transcript).length);
    const summaryCalls = replay.requests.reduce((total, request) => total + request.summaryCalls, 0);
    expect(summaryCalls).toBeGreaterThan(0);
    expect(summaryModel.calls).toBe(summaryCalls);
  });
});
