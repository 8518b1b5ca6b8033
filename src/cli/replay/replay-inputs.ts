import { basename } from 'node:path';
import { loadTranscripts } from '../../adapters/load-transcript.ts';
import { NoSessionsError, ReplayInputError } from '../../core/errors/index.ts';
import type { Transcript } from '../../core/message.ts';
import type { Policy } from '../../core/policy/policy-schema.ts';
import type { ToolDefinition } from '../../core/tool-definition.ts';
import { resolveContextWindow } from '../../providers/resolve-context-window.ts';
import {
  DEMO_CONTEXT_WINDOW,
  DEMO_MAX_OUTPUT_TOKENS,
  generateDemoSession,
} from '../../replay/demo-session.ts';
import { loadConfigFromFlags } from '../policy-flags.ts';
import { policyEntries, type ReplayFlags } from './replay-flags.ts';

/** The model replays assume when none is given: its tokenizer (o200k) is the one the metrics count with. */
export const DEFAULT_REPLAY_MODEL = 'gpt-4o';

export interface ReplaySession {
  name: string;
  transcript: Transcript;
  tools: ToolDefinition[];
  demo: boolean;
}

export interface ReplayPolicy {
  /** `ctxkit:<preset>` or `ctxkit:<config file>`. */
  system: string;
  policy: Policy;
}

export interface ReplayWindow {
  contextWindow: number;
  maxOutputTokens: number;
  /** The demo's own default window applied (no window from flags or config). */
  demoDefault: boolean;
}

export async function loadReplaySessions(
  paths: readonly string[],
  demo: { enabled: boolean; seed: number },
  onSkip: (file: string, reason: string) => void,
): Promise<ReplaySession[]> {
  const sessions: ReplaySession[] = [];
  if (demo.enabled) {
    const generated = generateDemoSession(demo.seed);
    sessions.push({
      name: generated.name,
      transcript: generated.transcript,
      tools: generated.tools,
      demo: true,
    });
  }
  for (const path of paths) {
    const loaded = await loadTranscripts(path, { onSkip });
    if (loaded.length === 0) throw new NoSessionsError(path);
    for (const entry of loaded) {
      sessions.push({ name: basename(entry.file), transcript: entry.transcript, tools: [], demo: false });
    }
  }
  if (sessions.length === 0) {
    throw new ReplayInputError('nothing to replay: give session files or directories, or --demo');
  }
  return sessions;
}

/**
 * One policy per `--policy` entry, each with the other flags, the config file and the environment;
 * {@link DEFAULT_REPLAY_MODEL} when none of them names a model.
 */
export async function loadReplayPolicies(flags: ReplayFlags): Promise<ReplayPolicy[]> {
  const policies: ReplayPolicy[] = [];
  for (const entry of policyEntries(flags.policy)) {
    const config = await loadConfigFromFlags({ ...flags, policy: entry });
    const system = config.configFile && entry !== config.preset ? basename(config.configFile) : config.preset;
    const policy = { ...config.policy, model: config.policy.model ?? DEFAULT_REPLAY_MODEL };
    policies.push({ system: `ctxkit:${system}`, policy });
  }
  return policies;
}

/**
 * The window a session replays in: the policy's (flags, config, model profile), except that the demo,
 * left unset, uses {@link DEMO_CONTEXT_WINDOW} and {@link DEMO_MAX_OUTPUT_TOKENS} so it needs compaction.
 */
export function replayWindow(policy: Policy, session: ReplaySession): ReplayWindow {
  const demoDefault = session.demo && policy.budget.contextWindow <= 0;
  const resolved = resolveContextWindow({
    model: policy.model,
    contextWindow: demoDefault ? DEMO_CONTEXT_WINDOW : policy.budget.contextWindow,
    maxOutputTokens:
      demoDefault && policy.budget.maxOutputTokens <= 0
        ? DEMO_MAX_OUTPUT_TOKENS
        : policy.budget.maxOutputTokens,
    detectWindow: policy.budget.detectWindow,
  });
  return { contextWindow: resolved.contextWindow, maxOutputTokens: resolved.maxOutputTokens, demoDefault };
}
