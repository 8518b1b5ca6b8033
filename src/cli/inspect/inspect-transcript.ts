import {
  measurePressure,
  reachableThreshold,
  thresholdInputTokens,
} from '../../core/budget/pressure-measure.ts';
import { findToolPairingProblems } from '../../core/find-tool-pairing-problems.ts';
import type { Message, Role, Transcript } from '../../core/message.ts';
import { isAgentVisible, toolCallsOf, toolResultOf } from '../../core/message.ts';
import { autoCompactThreshold } from '../../core/policy/effective-hooks.ts';
import type { Policy } from '../../core/policy/policy-schema.ts';
import { estimateMessageTokens } from '../../core/tokens/estimate-message-tokens.ts';
import { addBreakdown, emptyBreakdown, type TokenBreakdown } from '../../core/tokens/token-breakdown.ts';
import type { TokenCounter } from '../../core/tokens/token-counter.ts';
import { parseTurnBoundaries } from '../../core/turns/parse-turn-boundaries.ts';
import { ARCHIVED_RESULT_KIND } from '../../core/view/archived-messages.ts';

/** How many of the largest tool results the report lists. */
export const LARGEST_RESULTS_SHOWN = 5;

export interface TokenFigures {
  system: number;
  messages: TokenBreakdown;
  total: number;
}

export interface LargestResult {
  seq: number;
  tool: string;
  chars: number;
  tokens: number;
  firstLine: string;
  /** Archived (tiancai): kept in the history, no longer sent to the model. */
  archived?: true;
}

export interface TranscriptReport {
  file: string;
  format: string;
  messages: number;
  roles: Record<Role | 'system', number>;
  turns: number;
  toolCalls: number;
  toolCallsByName: Record<string, number>;
  unansweredCalls: number;
  orphanResults: number;
  /** Tool results archived (hidden from the model, `tool_result_archived`): counted in `roles.tool`, not in tokens. */
  archivedResults: number;
  chars: number;
  exact: TokenFigures & { encoding: string };
  heuristic: TokenFigures & { charsPerToken: number };
  largestResults: LargestResult[];
  fit: {
    model: string | undefined;
    contextWindow: number;
    /** Where the window came from: set (--window, config), the model's profile, or 4 × max output. */
    windowSource?: 'explicit' | 'profile' | 'max-output';
    maxOutputTokens: number;
    /** exact tokens / (window − max output). */
    pressure: number;
    fits: boolean;
    /** Pressure at which the policy summarizes, and in tokens. */
    compactsAt: { pressure: number; tokens: number } | undefined;
    clearsAt: { pressure: number; tokens: number } | undefined;
  };
}

export interface InspectSettings {
  policy: Policy;
  exact: TokenCounter;
  exactEncoding: string;
  heuristic: TokenCounter;
  model: string | undefined;
  contextWindow: number;
  windowSource?: 'explicit' | 'profile' | 'max-output';
  maxOutputTokens: number;
}

function figures(transcript: Transcript, counter: TokenCounter, policy: Policy): TokenFigures {
  const options = {
    messageOverheadTokens: policy.tokens.messageOverhead,
    mediaTokens: policy.tokens.mediaTokens,
    countToolCallType: policy.tokens.countToolCallType,
  };
  const messages = emptyBreakdown();
  for (const message of transcript.messages) {
    if (message.meta.agentVisible === false) continue;
    addBreakdown(messages, estimateMessageTokens(message, counter, options));
  }
  let system = 0;
  for (const text of transcript.system) system += counter.count(text) + policy.tokens.messageOverhead;
  return { system, messages, total: system + messages.total };
}

/** An archived tool result: marked so (tiancai's kind), or hidden from the model as archiving hides it. */
function isArchived(message: Message): boolean {
  return message.meta.kind === ARCHIVED_RESULT_KIND || !isAgentVisible(message);
}

function charsOf(message: Message): number {
  let chars = 0;
  for (const part of message.parts) {
    if (part.type === 'text' || part.type === 'reasoning') chars += part.text.length;
    else if (part.type === 'tool-call') chars += part.args.length;
    else if (part.type === 'tool-result') chars += part.content.length;
  }
  return chars;
}

/** Everything `ctxkit inspect` says about one session. Pure: counters and window come in. */
export function inspectTranscript(
  file: string,
  format: string,
  transcript: Transcript,
  settings: InspectSettings,
): TranscriptReport {
  const roles: Record<Role | 'system', number> = {
    system: transcript.system.length,
    user: 0,
    assistant: 0,
    tool: 0,
  };
  const toolCallsByName: Record<string, number> = {};
  let toolCalls = 0;
  let archivedResults = 0;
  let chars = transcript.system.reduce((sum, text) => sum + text.length, 0);
  const results: LargestResult[] = [];
  for (const message of transcript.messages) {
    roles[message.role]++;
    chars += charsOf(message);
    for (const call of toolCallsOf(message)) {
      toolCalls++;
      toolCallsByName[call.name] = (toolCallsByName[call.name] ?? 0) + 1;
    }
    const result = toolResultOf(message);
    if (result) {
      const archived = isArchived(message);
      if (archived) archivedResults++;
      results.push({
        seq: message.seq,
        tool: result.name || '(unnamed)',
        chars: result.content.length,
        tokens: 0,
        firstLine: (result.content.split('\n').find((line) => line.trim().length > 0) ?? '').slice(0, 80),
        ...(archived ? { archived: true as const } : {}),
      });
    }
  }
  const largestResults = results
    .sort((a, b) => b.chars - a.chars || a.seq - b.seq)
    .slice(0, LARGEST_RESULTS_SHOWN)
    .map((entry) => {
      const message = transcript.messages.find((candidate) => candidate.seq === entry.seq);
      const content = message ? (toolResultOf(message)?.content ?? '') : '';
      return { ...entry, tokens: settings.exact.count(content) };
    });
  const pairing = findToolPairingProblems(transcript.messages);
  const exact = figures(transcript, settings.exact, settings.policy);
  const heuristic = figures(transcript, settings.heuristic, settings.policy);
  const { contextWindow, maxOutputTokens, policy } = settings;
  // In the policy's own measure, as the engine's stats report it: what its thresholds are fractions of.
  const measure = policy.budget.pressureOf;
  const regions = {
    contextWindow,
    maxOutputTokens,
    system: exact.system,
    toolDefinitions: 0,
    summary: 0,
    history: exact.total - exact.system,
  };
  const pressure = measurePressure(measure, regions);
  const at = (fraction: number) => ({
    pressure: fraction,
    tokens: thresholdInputTokens(fraction, measure, regions),
  });
  return {
    file,
    format,
    messages: transcript.messages.length + transcript.system.length,
    roles,
    turns: parseTurnBoundaries(transcript.messages).length,
    toolCalls,
    toolCallsByName,
    unansweredCalls: pairing.unansweredCalls.length,
    orphanResults: pairing.orphanResults.length,
    archivedResults,
    chars,
    exact: { ...exact, encoding: settings.exactEncoding },
    heuristic: {
      ...heuristic,
      charsPerToken: settings.heuristic.charsPerToken ?? policy.tokens.charsPerToken,
    },
    largestResults,
    fit: {
      model: settings.model,
      contextWindow,
      ...(settings.windowSource !== undefined ? { windowSource: settings.windowSource } : {}),
      maxOutputTokens,
      pressure,
      fits: exact.total + maxOutputTokens <= contextWindow,
      compactsAt: policy.summarize.auto
        ? at(autoCompactThreshold(policy, { contextWindow, maxOutputTokens }))
        : undefined,
      clearsAt: policy.clearing.enabled
        ? at(reachableThreshold(policy.clearing.trigger, measure, regions))
        : undefined,
    },
  };
}
