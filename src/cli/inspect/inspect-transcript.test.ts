import { describe, expect, it } from 'vitest';
import { PRESETS } from '../../core/policy/presets/index.ts';
import { createExactCounter } from '../../core/tokens/exact-counter.ts';
import { createHeuristicCounter } from '../../core/tokens/heuristic-counter.ts';
import { assistant, numbered, user } from '../../testing/build-messages.ts';
import { inspectTranscript } from './inspect-transcript.ts';

const transcript = {
  system: ['You are a careful agent.'],
  messages: numbered([user('list the files'), assistant('a.ts b.ts')]),
};

function inspect(preset: 'default' | 'deepagents' | 'picoclaw', maxOutputTokens: number) {
  return inspectTranscript('t.jsonl', 'ctxkit', transcript, {
    policy: PRESETS[preset],
    exact: createExactCounter('o200k'),
    exactEncoding: 'o200k',
    heuristic: createHeuristicCounter(4),
    model: 'gpt-4o',
    contextWindow: 32_768,
    maxOutputTokens,
  });
}

describe('inspectTranscript', () => {
  it("states pressure and thresholds in the policy's own measure, as the engine's stats do", () => {
    // deepagents: "~60 % / ~85 % of the model's window", the whole window.
    const deep = inspect('deepagents', 4_096).fit;
    expect(deep.clearsAt).toEqual({ pressure: 0.6, tokens: 19_660 });
    expect(deep.compactsAt).toEqual({ pressure: 0.85, tokens: 27_852 });
    expect(deep.pressure).toBeCloseTo(inspect('deepagents', 4_096).exact.total / 32_768, 12);
    // default: input over the window less the reply's reserve.
    const own = inspect('default', 4_096);
    expect(own.fit.pressure).toBeCloseTo(own.exact.total / (32_768 - 4_096), 12);
    // picoclaw measures the history alone against the window: MaxTokens does not move its trigger.
    const small = inspect('picoclaw', 4_096).fit.compactsAt;
    const large = inspect('picoclaw', 16_384).fit.compactsAt;
    expect(small).toEqual(large);
  });
});
