import { InvalidConfigError, InvalidPolicyError } from '../../errors/index.ts';
import { isRecord } from '../../is-record.ts';
import { didYouMean, nearestNames } from '../nearest-name.ts';
import { parsePolicyWithOrigins } from '../parse-policy.ts';
import { POLICY_DIALECTS, type PolicyDialect } from '../policy-aliases.ts';
import { describeValue } from '../policy-issues.ts';
import { formatPath, type PolicyPath, parsePath } from '../policy-paths.ts';
import { writtenKeyOf } from '../translate-seed-names.ts';
import { type ConfigLayer, type ConfigLocation, configError } from './config-layer.ts';
import { parseConfigText } from './parse-config-text.ts';

/**
 * A config file (JSON or YAML):
 *
 *   preset: digitorn            # optional: the preset the file's settings apply to
 *   dialect: auto               # optional: how to read seed names (see parsePolicy)
 *   summarize:                  # ctxkit's names …
 *     trigger: 0.8
 *   runtime:                    # … or a seed's (here digitorn's runtime.context block)
 *     context: { keep_recent: 12 }
 *   agents:                     # optional per-agent overrides, field by field over the above
 *     explorer: { budget: { contextWindow: 65536 }, summarize: { strategy: drop } }
 *
 * `agents` may also be digitorn's list form: `- id: explorer, brain: { model, context: {…} }`.
 */

export const CONFIG_FILE_KEYS = ['preset', 'dialect', 'agents', '$schema'] as const;

export interface ConfigFile {
  preset: { name: string; source: string } | undefined;
  dialect: PolicyDialect | undefined;
  /** The app-level settings. */
  layer: ConfigLayer | undefined;
  /** Agent name → its override block, validated lazily when the agent is selected. */
  agents: ReadonlyMap<string, { value: unknown; path: PolicyPath }>;
  /** Build the layer of one agent block. */
  agentLayer: (name: string) => ConfigLayer;
}

export function readConfigFile(
  text: string,
  fileName: string,
  options: { dialect?: PolicyDialect } = {},
): ConfigFile {
  const parsed = parseConfigText(text, fileName);
  const where = (key: string): ConfigLocation => {
    const line = parsed.lineOf(parsePath(key));
    return { source: `file:${fileName}#${key}`, file: fileName, ...(line !== undefined ? { line } : {}) };
  };
  if (!isRecord(parsed.data)) {
    throw new InvalidConfigError(
      '(file)',
      `expected a mapping of settings at the top, got ${describeValue(parsed.data)}`,
      {
        source: `file:${fileName}`,
        file: fileName,
      },
    );
  }

  const { preset, dialect, agents, $schema: _schema, ...settings } = parsed.data;
  if (preset !== undefined && typeof preset !== 'string') {
    throw new InvalidConfigError(
      'preset',
      `expected a preset name, got ${describeValue(preset)}`,
      where('preset'),
    );
  }
  if (dialect !== undefined && !(POLICY_DIALECTS as readonly unknown[]).includes(dialect)) {
    const suggestions = typeof dialect === 'string' ? nearestNames(dialect, POLICY_DIALECTS) : [];
    throw new InvalidConfigError(
      'dialect',
      `expected one of ${POLICY_DIALECTS.join(', ')}, got ${describeValue(dialect)}${didYouMean(suggestions)}`,
      where('dialect'),
    );
  }
  const fileDialect = (dialect as PolicyDialect | undefined) ?? options.dialect;

  const layerOf = (value: unknown, prefix: PolicyPath): ConfigLayer => {
    const keyOf = (key: string) => formatPath([...prefix, ...parsePath(key)]);
    const locate = (key: string) => where(keyOf(key));
    try {
      const result = parsePolicyWithOrigins(value, fileDialect !== undefined ? { dialect: fileDialect } : {});
      const sources: Record<string, string> = {};
      for (const [leaf, written] of Object.entries(result.origins))
        sources[leaf] = `file:${fileName}#${keyOf(written)}`;
      const origins = new Map(Object.entries(result.origins));
      return {
        override: result.override,
        sources,
        locate: (key) => locate(writtenKeyOf(key, origins)),
      };
    } catch (error) {
      if (InvalidPolicyError.isInstance(error) && error.key === '(policy)') {
        const reason = typeof error.details.reason === 'string' ? error.details.reason : error.message;
        throw new InvalidConfigError(formatPath(prefix) || '(file)', reason, where(formatPath(prefix)));
      }
      throw configError(error, locate, keyOf);
    }
  };

  const agentBlocks = new Map<string, { value: unknown; path: PolicyPath }>();
  if (Array.isArray(agents)) {
    // Digitorn: agents: [{ id, brain: { model, context: {…} } }]
    agents.forEach((agent, index) => {
      const at = (key: string) => where(formatPath(['agents', index, ...parsePath(key)]));
      if (!isRecord(agent) || typeof agent.id !== 'string') {
        throw new InvalidConfigError(
          `agents[${index}]`,
          'expected { id, brain: { model?, context? } }',
          at(''),
        );
      }
      const { id, brain, ...rest } = agent;
      const extra = Object.keys(rest)[0];
      if (extra !== undefined) {
        throw new InvalidConfigError(
          `agents[${index}].${extra}`,
          'unknown key (ctxkit reads id and brain)',
          at(extra),
        );
      }
      const block: Record<string, unknown> = {};
      if (brain !== undefined) {
        if (!isRecord(brain))
          throw new InvalidConfigError(`agents[${index}].brain`, 'expected a mapping', at('brain'));
        for (const [key, field] of Object.entries(brain)) {
          if (key === 'model') block.model = field;
          else if (key === 'context') block.context = field;
          else {
            throw new InvalidConfigError(
              `agents[${index}].brain.${key}`,
              'unknown key (ctxkit reads brain.model and brain.context)',
              at(`brain.${key}`),
            );
          }
        }
      }
      agentBlocks.set(id, { value: block, path: ['agents', index, 'brain'] });
    });
  } else if (isRecord(agents)) {
    for (const [name, block] of Object.entries(agents))
      agentBlocks.set(name, { value: block, path: ['agents', name] });
  } else if (agents !== undefined) {
    throw new InvalidConfigError(
      'agents',
      `expected a mapping of agent name → settings, got ${describeValue(agents)}`,
      where('agents'),
    );
  }

  return {
    preset: typeof preset === 'string' ? { name: preset, source: `file:${fileName}#preset` } : undefined,
    dialect: fileDialect,
    layer: Object.keys(settings).length > 0 ? layerOf(settings, []) : undefined,
    agents: agentBlocks,
    agentLayer: (name) => {
      const block = agentBlocks.get(name);
      if (block === undefined) {
        const suggestions = nearestNames(name, agentBlocks.keys());
        const known = [...agentBlocks.keys()];
        throw new InvalidConfigError(
          'agent',
          `no agent "${name}" in ${fileName}${didYouMean(suggestions)}${known.length > 0 ? ` (agents: ${known.join(', ')})` : ''}`,
          { source: `file:${fileName}#agents`, file: fileName },
        );
      }
      return layerOf(block.value, block.path);
    },
  };
}
