import { isRecord } from '../is-record.ts';
import type { PolicyDialect, SeedDialect } from './policy-aliases.ts';
import { TOP_LEVEL_ALIAS_NOTES } from './policy-aliases.ts';
import { policyErrorFromZod } from './policy-issues.ts';
import { formatPath, type PolicyPath } from './policy-paths.ts';
import { type PolicyOverride, PolicyOverrideSchema } from './policy-schema.ts';
import { translateSeedNames, writtenKeyOf } from './translate-seed-names.ts';

/**
 * Reads a policy override from plain data (a parsed JSON/YAML document, an object literal): seed
 * names translated per dialect, then validated strictly. Every error is an InvalidPolicyError that
 * names the full key path as written, says what was expected, and suggests the nearest valid key.
 *
 *   parsePolicy({ summarize: { trigger: 0.8 } })                        // ctxkit names
 *   parsePolicy({ MaxMessages: 30, KeepRecentTokens: 8000 })            // tiancai's, inferred
 *   parsePolicy({ max_tokens: 65536, strategy: 'truncate' }, { dialect: 'digitorn' })
 *   parsePolicy({ runtime: { context: { keep_recent: 8 } } })           // digitorn's own block
 */

export interface ParsePolicyOptions {
  /** Which product's names to read ambiguous seed names in. Default `auto`: inferred from the names present. */
  dialect?: PolicyDialect;
}

export interface ParsedPolicy {
  override: PolicyOverride;
  /** Every leaf the override sets (`summarize.trigger`, `hooks`) → the key as it was written (`compression_trigger`). */
  origins: Record<string, string>;
  /** The seed dialect used for seed names, if any were present. */
  dialect: SeedDialect | undefined;
}

/** Leaf paths of plain data: objects are descended, arrays and scalars are leaves. */
export function leafEntries(value: unknown, prefix: PolicyPath = []): [string, unknown][] {
  if (!isRecord(value)) return prefix.length === 0 ? [] : [[formatPath(prefix), value]];
  const entries: [string, unknown][] = [];
  for (const [key, child] of Object.entries(value)) {
    if (child === undefined) continue;
    entries.push(...leafEntries(child, [...prefix, key]));
  }
  return entries;
}

export function parsePolicyWithOrigins(input: unknown, options: ParsePolicyOptions = {}): ParsedPolicy {
  const translated = translateSeedNames(input, options);
  const result = PolicyOverrideSchema.safeParse(translated.value);
  if (!result.success) {
    throw policyErrorFromZod(result.error, translated.value, {
      extraKeys: (path) => (path.length === 0 ? TOP_LEVEL_ALIAS_NOTES : new Map()),
      writtenAs: (path) => writtenKeyOf(path, translated.writtenAs),
    });
  }
  const origins: Record<string, string> = {};
  for (const [path] of leafEntries(result.data)) origins[path] = writtenKeyOf(path, translated.writtenAs);
  return { override: result.data, origins, dialect: translated.dialect };
}

/** The validated override; see {@link parsePolicyWithOrigins} for where each field came from. */
export function parsePolicy(input: unknown, options: ParsePolicyOptions = {}): PolicyOverride {
  return parsePolicyWithOrigins(input, options).override;
}
