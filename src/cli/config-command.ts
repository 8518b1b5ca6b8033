import { escapeForTerminal as safe, stringifyForTerminal } from '../core/escape-for-terminal.ts';
import { effectiveHookLines } from '../core/policy/config/format-effective-hooks.ts';
import { policySourceRows } from '../core/policy/config/format-policy-sources.ts';
import {
  deviationLines,
  deviationsInForce,
  loweredThresholds,
  windowRuleDeviations,
} from '../core/policy/describe-deviations.ts';
import { effectiveHooks, type HookWindow } from '../core/policy/effective-hooks.ts';
import type { Policy } from '../core/policy/policy-schema.ts';
import { PRESET_DEVIATIONS, PRESETS, type PresetName } from '../core/policy/presets/index.ts';
import { type ChosenWindow, chooseContextWindow } from '../providers/resolve-context-window.ts';
import { loadConfigFromFlags, type PolicyFlags, sourceAsTyped, WINDOW_ZERO_MEANS } from './policy-flags.ts';

export interface ConfigFlags extends PolicyFlags {
  json?: boolean;
  changed?: boolean;
}

/** Values longer than this are cut with `…` in the table (`--json` has them whole). */
export const CONFIG_VALUE_WIDTH = 60;

/** `ctxkit config`: the effective policy, and where each value came from. */
export async function configCommand(flags: ConfigFlags): Promise<void> {
  const config = await loadConfigFromFlags(flags);
  if (flags.json) {
    const window = hookWindow(config.policy);
    const hooks = effectiveHooks(config.policy, window);
    const deviations = {
      preset: [
        ...deviationsInForce(PRESET_DEVIATIONS[config.preset], PRESETS[config.preset], config.policy),
        ...windowRuleDeviations(config.policy),
      ],
      thresholds: loweredThresholds(config.policy, knownWindow(window)),
    };
    process.stdout.write(
      `${stringifyForTerminal({ policy: config.policy, sources: config.sources, effectiveHooks: hooks, deviations })}\n`,
    );
    return;
  }
  process.stdout.write(
    `preset ${safe(config.preset)} (${safe(sourceAsTyped(config.presetSource, config.flagNames))})${config.configFile ? ` · file ${safe(config.configFile)}` : ''}\n\n`,
  );
  const rows = policySourceRows(config.policy, config.sources)
    .filter((row) => !flags.changed || !row.source.startsWith('preset:'))
    .map((row) => {
      const chars = [...row.value];
      const value =
        chars.length > CONFIG_VALUE_WIDTH ? `${chars.slice(0, CONFIG_VALUE_WIDTH - 1).join('')}…` : row.value;
      return [safe(row.key), safe(value), safe(sourceAsTyped(row.source, config.flagNames))] as const;
    });
  const all = [['key', 'value', 'source'] as const, ...rows];
  const keyWidth = Math.max(...all.map((row) => [...row[0]].length));
  const valueWidth = Math.max(...all.map((row) => [...row[1]].length));
  const pad = (text: string, width: number) => text + ' '.repeat(Math.max(0, width - [...text].length));
  const table = all.map((row) => `${pad(row[0], keyWidth)}  ${pad(row[1], valueWidth)}  ${row[2]}`.trimEnd());
  process.stdout.write(
    `${table.join('\n')}\n\n${describeHooks(config.policy)}\n${describeWindow(config.policy)}\n${describeDeviations(config.preset, config.policy)}`,
  );
}

/** The window the engine would run this policy with, when it can be told without a request. */
function hookWindow(policy: Policy): HookWindow | undefined {
  try {
    const { contextWindow, maxOutputTokens, windowSource } = chooseContextWindow(policy, {
      model: policy.model,
    });
    const known = windowSource !== 'max-context-tokens' && windowSource !== 'unbounded';
    return { contextWindow, maxOutputTokens, known };
  } catch {
    return undefined;
  }
}

/** A window that is one (not tiancai's stand-in for none), for figures worked out from it. */
function knownWindow(window: HookWindow | undefined): HookWindow | undefined {
  return window?.known === false ? undefined : window;
}

/**
 * Where the preset departs from its seed (`PRESET_DEVIATIONS`, and the window rule's own), each with why,
 * and a threshold the window brings down to the largest request that fits with the seed's figure beside
 * the one used.
 * Nothing for `default`, ctxkit's own policy, unless its thresholds are brought down too.
 */
export function describeDeviations(preset: PresetName, policy: Policy): string {
  const lowered = loweredThresholds(policy, knownWindow(hookWindow(policy)));
  const declared = [
    ...deviationsInForce(PRESET_DEVIATIONS[preset], PRESETS[preset], policy),
    ...windowRuleDeviations(policy),
  ];
  const lines = deviationLines(declared, lowered, { why: true });
  if (lines.length === 0) return '';
  const title = preset === 'default' ? 'deviations:' : `deviations from the ${safe(preset)} seed:`;
  return `\n${title}\n${lines.map((line) => `  ${safe(line)}\n`).join('')}`;
}

/** The hooks as the engine runs them: `hooks` lists only the declared ones, not `summarize.auto`'s. */
export function describeHooks(policy: Policy): string {
  const lines = effectiveHookLines(policy, hookWindow(policy));
  if (lines.length === 0) return 'hooks as run: none\n';
  return `hooks as run:\n${lines.map((line) => `  ${safe(line)}\n`).join('')}`;
}

/**
 * What budget.contextWindow 0 means for this policy: the window commands will actually use, by the
 * window rule every door follows (`chooseContextWindow`), without a server to ask.
 */
export function describeWindow(policy: Policy): string {
  const set = policy.budget.contextWindow;
  if (set > 0) return `window ${count(set)} tokens (set)`;
  const zero = `budget.contextWindow 0 = ${WINDOW_ZERO_MEANS}`;
  let chosen: ChosenWindow;
  try {
    chosen = chooseContextWindow(policy, { model: policy.model });
  } catch {
    return policy.model === undefined
      ? `${zero}: no model set here (inspect and replay assume gpt-4o); --model or --window to choose`
      : `${zero}: no profile for model "${safe(policy.model)}", so commands need --window (chat and serve first ask a local server what it serves)`;
  }
  const reserve = `output reserve ${count(chosen.maxOutputTokens)}`;
  switch (chosen.windowSource) {
    case 'max-context-tokens':
      return `${zero}: none known without a model, so compaction fires at budget.maxContextTokens (${count(policy.budget.maxContextTokens)} tokens); ${reserve}`;
    case 'unbounded':
      return `${zero}: none known without a model, so compaction goes by message count (summarize.maxMessages ${count(policy.summarize.maxMessages)}); ${reserve}`;
    case 'max-output':
      return `budget.contextWindow 0 = 4 × max output (the policy does not look windows up): ${count(chosen.contextWindow)} tokens; ${reserve}`;
    default:
      return `${zero}: ${count(chosen.contextWindow)} tokens, from the ${safe(policy.model ?? '')} profile; ${reserve}`;
  }
}

const count = (value: number): string => value.toLocaleString('en-US');
