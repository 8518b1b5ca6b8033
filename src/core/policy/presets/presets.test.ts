import { describe, expect, it } from 'vitest';
import { effectiveHooks } from '../effective-hooks.ts';
import { leafPaths } from '../policy-paths.ts';
import { PolicySchema } from '../policy-schema.ts';
import {
  COWAGENT_POLICY,
  DEEPAGENTS_POLICY,
  DEFAULT_POLICY,
  DIGITORN_POLICY,
  getPreset,
  PICOCLAW_POLICY,
  PRESET_DEVIATIONS,
  PRESET_NAMES,
  PRESETS,
  TIANCAI_POLICY,
} from './index.ts';

describe('every preset', () => {
  it.each(PRESET_NAMES)('%s is a complete, valid policy', (name) => {
    const result = PolicySchema.safeParse(PRESETS[name]);
    expect(result.success ? [] : result.error.issues).toEqual([]);
  });

  it.each(PRESET_NAMES)('%s is frozen plain data', (name) => {
    const preset = PRESETS[name];
    expect(Object.isFrozen(preset)).toBe(true);
    expect(Object.isFrozen(preset.summarize)).toBe(true);
    expect(Object.isFrozen(preset.clearing.excludeTools)).toBe(true);
    expect(JSON.parse(JSON.stringify(preset))).toEqual(preset);
    expect(() => {
      (preset.summarize as { trigger: number }).trigger = 0.1;
    }).toThrow(TypeError);
  });

  it('getPreset names the nearest preset for a typo', () => {
    expect(getPreset('tiancai')).toBe(TIANCAI_POLICY);
    expect(() => getPreset('tiancia')).toThrow(/unknown preset "tiancia"; did you mean "tiancai"\?/);
  });
});

describe('default (docs/ARCHITECTURE.md: what `default` chooses where the seeds disagree)', () => {
  const policy = DEFAULT_POLICY;

  it('"its own message right after the system prompt, so the system prompt stays byte-stable"', () => {
    expect(policy.summarize.placement).toBe('own-message');
  });

  it('"exact tokenizer when the model\'s is known; otherwise the calibrated counter, anchored on reported usage"', () => {
    expect(policy.tokens.counter).toBe('auto');
    expect(policy.tokens.encoding).toBeUndefined();
    expect(policy.tokens.anchorOnUsage).toBe(true);
  });

  it('"20k tokens, a quarter of the budget at most; a turn boundary, else a message boundary"', () => {
    expect(policy.summarize.keepRecentTokens).toBe(20_000);
    expect(policy.summarize.keepRecentTokensMaxFraction).toBe(0.25);
    expect(policy.summarize.cutAt).toBe('turn-or-message');
    expect(policy.summarize.keepRecentMessages).toBe(0);
  });

  it('"summarize at 85 %, and the full-formula check before every call"; the working set kept, older output offloaded under pressure', () => {
    // The agent sees what it read until pressure calls for room: at 60 %, everything outside the newest
    // three quarters of the usable window (at most 80k tokens, at least 3 results) is offloaded behind pointers
    // that keep its keys, in batches worth a cache rebuild (docs/how-it-works.md, the working set).
    expect(policy.clearing).toMatchObject({
      enabled: true,
      trigger: 0.6,
      offload: true,
      keepRecent: 3,
      keepRecentFraction: 0.75,
      keepRecentTokens: 80_000,
      minFreedFraction: 0.15,
      stopAtMinimum: false,
      pointerKeysMaxChars: 240,
    });
    expect(policy.summarize).toMatchObject({ auto: true, trigger: 0.85 });
    expect(policy.budget.proactiveCheck).toBe(true);
  });

  it('"normalize on arrival (render, cap), evict > 20k tokens with a pointer"; old results are not truncated before pressure', () => {
    expect(policy.toolOutput).toMatchObject({
      enabled: true,
      renderTerminal: true,
      spillThresholdTokens: 20_000,
    });
    expect(policy.toolOutput.maxLines).toBeGreaterThan(0);
    expect(policy.truncateOld.enabled).toBe(false);
  });

  it('"no model call (the model is refusing): drop to the newest turns that fit beside the summary, retry once, then reset"', () => {
    expect(policy.emergency).toMatchObject({
      enabled: true,
      sequence: ['drop-to-fit'],
      maxRetries: 1,
      resetWhenStillOver: true,
    });
  });

  it('"full checkpoint; `text` mode available"', () => {
    expect(policy.restore.mode).toBe('full');
  });

  it('window 0 means "auto-detect" from the model profile', () => {
    expect(policy.budget).toMatchObject({ contextWindow: 0, maxOutputTokens: 0, detectWindow: true });
  });
});

describe('cowagent', () => {
  const policy = COWAGENT_POLICY;

  it('"agent_max_context_tokens | Maximum context token budget | 50000"', () => {
    expect(policy.budget.maxContextTokens).toBe(50_000);
    expect(policy.budget.maxContextTokensWhen).toBe('always');
  });

  it('"agent_max_context_turns | Maximum conversation turns in context | 20"', () => {
    expect(policy.trim.maxTurns).toBe(20);
    expect(policy.trim.enabled).toBe(true);
  });

  it('"agent_max_steps | Maximum decision steps per turn (tool call count) | 15"', () => {
    expect(policy.budget.maxSteps).toBe(15);
  });

  it('"Results exceeding 20,000 characters are truncated, keeping only the beginning and end"', () => {
    expect(policy.truncateOld).toMatchObject({ enabled: true, maxChars: 20_000 });
    expect(policy.truncateOld.headFraction).toBeGreaterThan(0);
    expect(policy.truncateOld.headFraction).toBeLessThan(1);
  });

  it('"The oldest half of complete turns is trimmed"', () => {
    expect(policy.trim.fraction).toBe(0.5);
  });

  it('"Trimmed messages are summarized by LLM and written to the daily memory file"', () => {
    expect(policy.trim.writeMemory).toBe(true);
  });

  it('"it is also injected into the first user message of the retained context"', () => {
    expect(policy.trim.injectSummary).toBe(true);
    expect(policy.summarize.placement).toBe('first-user-message');
  });

  it('"Fewer than 5 turns: All turns undergo text compression"', () => {
    expect(policy.compressText).toEqual({ enabled: true, belowTurns: 5 });
  });

  it('"All current messages are summarized and written to memory" then "Aggressive trimming is applied"', () => {
    expect(policy.emergency.sequence).toEqual(['summarize-to-memory', 'limit-sizes']);
  });

  it('"tool results limited to 10K chars, user text to 10K, max 5 turns"', () => {
    expect(policy.emergency).toMatchObject({
      toolResultMaxChars: 10_000,
      userTextMaxChars: 10_000,
      maxTurns: 5,
    });
  });

  it('"If still overflowing, the entire conversation context is cleared"', () => {
    expect(policy.emergency.resetWhenStillOver).toBe(true);
  });

  it('"Restores the most recent max(3, max_context_turns / 6) turns" keeping "user text and Agent final reply"', () => {
    expect(policy.restore).toEqual({ mode: 'text', minTurns: 3, turnDivisor: 6 });
  });

  it('"Sessions older than 30 days are automatically cleaned up"', () => {
    expect(policy.retention.maxIdleDays).toBe(30);
  });

  it('has no on-arrival normalization, clearing, archiving or pressure-triggered summary', () => {
    expect(policy.toolOutput.enabled).toBe(false);
    expect(policy.clearing.enabled).toBe(false);
    expect(policy.archive.strategy).toBe('off');
    expect(policy.summarize.auto).toBe(false);
    expect(effectiveHooks(policy)).toEqual([]);
  });
});

describe('tiancai', () => {
  const policy = TIANCAI_POLICY;

  it('"MaxMessages: 50" — "Otherwise: fall back to MaxMessages"', () => {
    expect(policy.summarize.maxMessages).toBe(50);
    expect(policy.summarize.maxMessagesWhen).toBe('no-token-limit');
  });

  it('"MaxTokens: 8000" — the token limit "else MaxTokens" when no window is set', () => {
    expect(policy.budget.maxContextTokens).toBe(8_000);
    expect(policy.budget.maxContextTokensWhen).toBe('no-window');
  });

  it('"KeepRecent: 5", "KeepRecentTokens: 20000"', () => {
    expect(policy.summarize.keepRecentMessages).toBe(5);
    expect(policy.summarize.keepRecentTokens).toBe(20_000);
  });

  it('"ReserveTokens: 16384" — "contextWindow - ReserveTokens (when context window is set and positive)"', () => {
    expect(policy.budget.reserveTokens).toBe(16_384);
    expect(policy.summarize.trigger).toBe(0);
  });

  it('"KeepRecentTokens is also clamped to at most half of the effective token limit"', () => {
    expect(policy.summarize.keepRecentTokensMaxFraction).toBe(0.5);
  });

  it('"ToolCallCutoff: 10", "ToolSummaryStrategy: llm"', () => {
    expect(policy.archive.toolCallCutoff).toBe(10);
    expect(policy.archive.strategy).toBe('model');
  });

  it('"AutoCompact: true" — "Runs after each TurnEnd event"', () => {
    expect(policy.summarize.auto).toBe(true);
    expect(policy.summarize.runOn).toBe('turn_end');
  });

  it('"MaxLines: 2000, MaxBytes: 50 * 1024, MaxChars: 200 * 1024, LargeOutputThreshold: 200 * 1024, TruncateMode: head_tail"', () => {
    expect(policy.toolOutput).toMatchObject({
      enabled: true,
      maxLines: 2_000,
      maxBytes: 51_200,
      maxChars: 204_800,
      spillThresholdChars: 204_800,
      truncateMode: 'head_tail',
    });
    expect(policy.toolOutput.spillThresholdTokens).toBe(0);
  });

  it('"input clipped to 12000 chars", "output clipped to 1200 runes", heuristic "clipped to 800 runes"', () => {
    expect(policy.archive).toMatchObject({
      inputMaxChars: 12_000,
      outputMaxChars: 1_200,
      extractiveMaxChars: 800,
    });
  });

  it('"toolResult text is reduced to a max of 1800 runes for summary input"', () => {
    expect(policy.summarize.toolResultMaxChars).toBe(1_800);
  });

  it('"one synthetic user message: prefix: [Previous conversation summary]"', () => {
    expect(policy.summarize.placement).toBe('user-message');
    expect(policy.summarize.prefix).toBe('[Previous conversation summary]');
  });

  it('"one digest message is appended with prefix [Compaction tool digest]"', () => {
    expect(policy.summarize.recentToolDigest).toBe(true);
  });

  it('"compacts and retries once (maxCompactionRecoveries = 1)"', () => {
    expect(policy.emergency).toMatchObject({ enabled: true, sequence: ['compact'], maxRetries: 1 });
    expect(policy.emergency.resetWhenStillOver).toBe(false);
  });

  it('"images approximated as ~1200 tokens", "converted with ceil(chars / 4)"', () => {
    expect(policy.tokens).toMatchObject({ counter: 'heuristic', charsPerToken: 4, mediaTokens: 1_200 });
  });

  it('"last assistant usage totals … plus estimated tokens for trailing messages"', () => {
    expect(policy.tokens.anchorOnUsage).toBe(true);
  });

  it('has no terminal rendering, old-result truncation, clearing or turn trimming', () => {
    expect(policy.toolOutput.renderTerminal).toBe(false);
    expect(policy.truncateOld.enabled).toBe(false);
    expect(policy.clearing.enabled).toBe(false);
    expect(policy.trim.enabled).toBe(false);
  });
});

describe('deepagents', () => {
  const policy = DEEPAGENTS_POLICY;

  it('"Any tool result over ~20k tokens is written to large_tool_results/<id> … replaced inline with a head/tail preview"', () => {
    expect(policy.toolOutput.spillThresholdTokens).toBe(20_000);
    expect(policy.toolOutput.previewHeadLines).toBe(5);
    expect(policy.toolOutput.previewTailLines).toBe(5);
  });

  it('"rendered through a terminal emulator … and tail-capped at 256 KB"', () => {
    expect(policy.toolOutput).toMatchObject({
      renderTerminal: true,
      maxBytes: 256 * 1024,
      truncateMode: 'tail',
    });
  });

  it('"Once the conversation passes ~60% of the model\'s window, the older tool results … are replaced by a [cleared] placeholder"', () => {
    expect(policy.clearing).toMatchObject({ enabled: true, trigger: 0.6, placeholder: '[cleared]' });
  });

  it('"while the most recent ones stay verbatim" (ClearToolUsesEdit keep=3, clear_at_least=0)', () => {
    expect(policy.clearing.keepRecent).toBe(3);
    expect(policy.clearing.minFreedTokens).toBe(0);
    expect(policy.clearing.clearToolInputs).toBe(false);
  });

  it('"the conversation reaches ~85% of the window, the older turns are replaced by a structured summary"', () => {
    expect(policy.summarize).toMatchObject({ auto: true, strategy: 'summarize', trigger: 0.85 });
  });

  it('"the newest turns stay verbatim" (deepagents keep ("fraction", 0.10))', () => {
    expect(policy.summarize.keepRecentFraction).toBe(0.1);
    expect(policy.summarize.keepRecentTokens).toBe(0);
  });

  it('"The summarized turns are offloaded to conversation_history/<thread>.md first … and the summary embeds that path"', () => {
    expect(policy.summarize.offloadTranscript).toBe(true);
  });

  it('"sized from the model profile"', () => {
    expect(policy.budget).toMatchObject({ contextWindow: 0, detectWindow: true });
  });

  it('"The status bar keeps a ctx percentage in view (yellow at 70%, red at 90%)"', () => {
    expect(policy.display).toEqual({ warnAt: 0.7, dangerAt: 0.9 });
  });

  it('"Conversation state lives in checkpoints.sqlite per session"', () => {
    expect(policy.restore.mode).toBe('full');
  });

  it('documents no overflow recovery, archiving, trimming or truncation of old results', () => {
    expect(policy.emergency.enabled).toBe(false);
    expect(policy.archive.strategy).toBe('off');
    expect(policy.trim.enabled).toBe(false);
    expect(policy.truncateOld.enabled).toBe(false);
  });
});

describe('digitorn', () => {
  const policy = DIGITORN_POLICY;

  it('"max_tokens: 200000 # 0 = auto-detect from provider"', () => {
    expect(policy.budget.contextWindow).toBe(200_000);
    expect(policy.budget.detectWindow).toBe(true);
  });

  it('"output_reserved: 4096 # tokens reserved for the LLM reply"', () => {
    expect(policy.budget.maxOutputTokens).toBe(4_096);
  });

  it('"strategy: summarize # truncate | summarize"', () => {
    expect(policy.summarize.strategy).toBe('summarize');
  });

  it('"keep_recent: 10 # most-recent messages preserved verbatim"', () => {
    expect(policy.summarize.keepRecentMessages).toBe(10);
    expect(policy.summarize.keepRecentTokens).toBe(0);
    expect(policy.summarize.keepRecentFraction).toBe(0);
    expect(policy.summarize.keepRecentTurns).toBe(0);
  });

  it('"compression_trigger: 0.75 # pressure ratio (0.0-1.0) that fires compaction"', () => {
    expect(policy.summarize.trigger).toBe(0.75);
  });

  it('"summary_max_tokens: 1024 # cap on the synthesised summary"', () => {
    expect(policy.summarize.maxSummaryTokens).toBe(1_024);
  });

  it('"auto_compact: true # auto-inject a context_pressure hook" (on turn_start, cooldown 30.0)', () => {
    expect(policy.summarize.auto).toBe(true);
    expect(effectiveHooks(policy)).toEqual([
      {
        id: '_auto_compact',
        on: 'turn_start',
        condition: { type: 'context_pressure', threshold: 0.75 },
        action: { type: 'compact_context', strategy: 'summarize', keepRecent: 10, summaryMaxTokens: 1_024 },
        cooldownSeconds: 30,
      },
    ]);
  });

  it('"Replace the dropped slice with a single system message containing the summary"', () => {
    expect(policy.summarize.placement).toBe('system-message');
  });

  it('"Halves keep_recent (minimum 4) and runs an aggressive truncate compaction (no LLM call)" then "Retries the turn"', () => {
    expect(policy.emergency).toMatchObject({
      enabled: true,
      sequence: ['truncate'],
      minKeepRecent: 4,
      maxRetries: 1,
    });
  });

  it('"a single huge tool result blowing past 25% of the budget" is clipped', () => {
    expect(policy.toolOutput.oversizedFraction).toBe(0.25);
    expect(policy.toolOutput.spillThresholdTokens).toBe(0);
    expect(policy.toolOutput.maxLines).toBe(0);
  });

  it('"When a session resumes after the daemon restarts, the snapshot is replayed"', () => {
    expect(policy.restore.mode).toBe('snapshot');
  });

  it('"~ 4 chars / token"', () => {
    expect(policy.tokens).toMatchObject({ counter: 'heuristic', charsPerToken: 4 });
  });

  it('has no clearing, archiving, turn trimming or text compression', () => {
    expect(policy.clearing.enabled).toBe(false);
    expect(policy.archive.strategy).toBe('off');
    expect(policy.trim.enabled).toBe(false);
    expect(policy.compressText.enabled).toBe(false);
  });
});

describe('picoclaw', () => {
  const policy = PICOCLAW_POLICY;

  it('"Current default when not explicitly configured: ContextWindow = MaxTokens * 4"', () => {
    expect(policy.budget.contextWindow).toBe(0);
    expect(policy.budget.detectWindow).toBe(false);
  });

  it('MaxTokens: "the default 32K"', () => {
    expect(policy.budget.maxOutputTokens).toBe(32_768);
  });

  it('"Triggers when message count exceeds a threshold, or when estimated history tokens exceed a percentage of ContextWindow" (20 / 75 %)', () => {
    expect(policy.summarize.maxMessages).toBe(20);
    expect(policy.summarize.maxMessagesWhen).toBe('always');
    expect(policy.summarize.trigger).toBe(0.75);
  });

  it('"maybeSummarize runs after each Turn completes"', () => {
    expect(policy.summarize.runOn).toBe('turn_end');
  });

  it('"BuildMessages injects it into the system prompt on the next call"', () => {
    expect(policy.summarize.placement).toBe('system-prompt');
  });

  it('"Cut point uses findSafeBoundary so no Turn is split" (keeping the last 4 messages)', () => {
    expect(policy.summarize.cutAt).toBe('turn');
    expect(policy.summarize.keepRecentMessages).toBe(4);
  });

  it('"isOverContextBudget runs before each LLM call. Uses the full budget formula"', () => {
    expect(policy.budget.proactiveCheck).toBe(true);
  });

  it('"Drops the oldest ~50% of Turns"', () => {
    expect(policy.emergency).toMatchObject({ enabled: true, sequence: ['drop-fraction'], dropFraction: 0.5 });
  });

  it('"Estimation uses a heuristic of ~2.5 characters per token (chars * 2 / 5)"', () => {
    expect(policy.tokens).toMatchObject({ counter: 'heuristic', charsPerToken: 2.5, anchorOnUsage: false });
  });

  it('has no tool-output normalization, truncation, clearing, archiving or turn trimming', () => {
    expect(policy.toolOutput.enabled).toBe(false);
    expect(policy.truncateOld.enabled).toBe(false);
    expect(policy.clearing.enabled).toBe(false);
    expect(policy.archive.strategy).toBe('off');
    expect(policy.trim.enabled).toBe(false);
  });
});

describe('deviations', () => {
  const keys = new Set(leafPaths().map((path) => path.join('.')));

  it.each(PRESET_NAMES)(
    '%s lists each as a policy key, what the seed does, what ctxkit does and why',
    (name) => {
      for (const deviation of PRESET_DEVIATIONS[name]) {
        expect(keys.has(deviation.setting), deviation.setting).toBe(true);
        for (const text of [deviation.seed, deviation.ctxkit, deviation.why])
          expect(text.length).toBeGreaterThan(20);
      }
      expect(Object.isFrozen(PRESET_DEVIATIONS[name])).toBe(true);
    },
  );

  it("lists the final guard for every seed preset that has it on; default, ctxkit's own, has none", () => {
    expect(PRESET_DEVIATIONS.default).toEqual([]);
    for (const name of PRESET_NAMES.filter((each) => each !== 'default')) {
      const listed = PRESET_DEVIATIONS[name].some((deviation) => deviation.setting === 'budget.finalGuard');
      expect(listed, name).toBe(PRESETS[name].budget.finalGuard);
    }
  });
});
