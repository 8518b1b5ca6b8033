import { InvalidPolicyError } from '../errors/index.ts';
import { isRecord } from '../is-record.ts';
import {
  ARCHIVE_STRATEGY_ALIASES,
  DIGITORN_STRATEGIES,
  HOOK_ACTION_KEY_ALIASES,
  HOOK_KEY_ALIASES,
  type PolicyDialect,
  SEED_ALIAS_BY_NAME,
  SEED_DIALECTS,
  SEED_OF_DIALECT,
  type SeedAlias,
  type SeedDialect,
  SUMMARIZE_STRATEGY_ALIASES,
} from './policy-aliases.ts';
import { describeValue, seedValueError } from './policy-issues.ts';
import { formatPath, parsePath } from './policy-paths.ts';
import { POLICY_SECTIONS } from './policy-schema.ts';

/**
 * Rewrites an input written with seed names (flat, or inside digitorn's `runtime.context` /
 * `runtime.hooks` / `context` blocks) into ctxkit's shape, recording for every field it sets the key
 * the user actually wrote, so errors and provenance can name it. Nothing is validated here beyond
 * what translation needs; unknown keys are passed through for the schema to report.
 */

export interface TranslatedPolicy {
  /** ctxkit-shaped, not yet validated. */
  value: Record<string, unknown>;
  /** ctxkit path (a leaf or a subtree root) → the key as written. */
  writtenAs: Map<string, string>;
  /** The dialect used for ambiguous names, when one was given or inferred. */
  dialect: SeedDialect | undefined;
}

export interface TranslateOptions {
  dialect?: PolicyDialect;
}

interface Entry {
  key: string;
  written: string;
  value: unknown;
  /** Found inside a seed's own block (digitorn's runtime.context), which fixes the dialect. */
  impliesDialect?: SeedDialect;
}

const TOP_LEVEL_KEYS: ReadonlySet<string> = new Set(POLICY_SECTIONS);

/** Flatten digitorn's blocks into entries; anything else at the top is an entry of its own. */
function collectEntries(input: Record<string, unknown>): Entry[] {
  const entries: Entry[] = [];
  for (const [key, value] of Object.entries(input)) {
    if (key === 'runtime' && isRecord(value)) {
      for (const [runtimeKey, runtimeValue] of Object.entries(value)) {
        if (runtimeKey === 'context' && isRecord(runtimeValue)) {
          for (const [contextKey, contextValue] of Object.entries(runtimeValue)) {
            entries.push({
              key: contextKey,
              written: `runtime.context.${contextKey}`,
              value: contextValue,
              impliesDialect: 'digitorn',
            });
          }
        } else if (runtimeKey === 'hooks') {
          entries.push({
            key: 'hooks',
            written: 'runtime.hooks',
            value: runtimeValue,
            impliesDialect: 'digitorn',
          });
        } else {
          throw new InvalidPolicyError(
            `runtime.${runtimeKey}`,
            'unknown key (ctxkit reads runtime.context and runtime.hooks)',
          );
        }
      }
    } else if (key === 'context' && isRecord(value)) {
      // Digitorn's agent-level block, agents[].brain.context.
      for (const [contextKey, contextValue] of Object.entries(value)) {
        entries.push({
          key: contextKey,
          written: `context.${contextKey}`,
          value: contextValue,
          impliesDialect: 'digitorn',
        });
      }
    } else {
      entries.push({ key, written: key, value });
    }
  }
  return entries;
}

/** The dialects every seed name present could belong to (undefined: no constraint). */
function inferDialect(entries: readonly Entry[]): SeedDialect | undefined {
  let candidates: Set<SeedDialect> | undefined;
  const narrow = (dialects: readonly SeedDialect[]) => {
    const next = new Set(dialects);
    candidates =
      candidates === undefined ? next : new Set([...candidates].filter((dialect) => next.has(dialect)));
  };
  for (const entry of entries) {
    if (entry.impliesDialect !== undefined) narrow([entry.impliesDialect]);
    const alias = TOP_LEVEL_KEYS.has(entry.key) ? undefined : SEED_ALIAS_BY_NAME.get(entry.key);
    if (alias !== undefined) narrow(Object.keys(alias.meanings) as SeedDialect[]);
  }
  const found = candidates === undefined ? [] : [...candidates];
  return found.length === 1 ? found[0] : undefined;
}

function meaningsText(alias: SeedAlias): string {
  return Object.entries(alias.meanings)
    .map(
      ([dialect, meaning]) => `in ${dialect} (${SEED_OF_DIALECT[dialect as SeedDialect]}) ${meaning?.target}`,
    )
    .join(', ');
}

/**
 * The dialect to read a seed name in: the one its block implies (digitorn's runtime.context), else
 * the requested one, else the inferred one. A name with a single meaning is read in it whatever the
 * dialect; a name with several (MaxTokens, max_tokens) needs one of them to be chosen.
 */
function chooseDialect(
  alias: SeedAlias,
  entry: Entry,
  requested: PolicyDialect,
  inferred: SeedDialect | undefined,
): SeedDialect {
  if (requested === 'ctxkit') {
    throw new InvalidPolicyError(
      entry.written,
      `a seed name (${meaningsText(alias)}), not accepted with dialect "ctxkit"; write the ctxkit key or use dialect "auto"`,
    );
  }
  const dialects = Object.keys(alias.meanings) as SeedDialect[];
  const preferred = entry.impliesDialect ?? (requested === 'auto' ? inferred : requested);
  if (preferred !== undefined && dialects.includes(preferred)) return preferred;
  const [only, ...others] = dialects;
  if (only !== undefined && others.length === 0) return only;
  throw new InvalidPolicyError(
    entry.written,
    `ambiguous seed name: it means ${meaningsText(alias)}; ${
      requested === 'auto'
        ? `name the dialect (one of ${dialects.join(', ')})`
        : `it is not a ${requested} setting`
    } or write the ctxkit key`,
    { dialects },
  );
}

/** Set `path` in `root`, refusing to set a leaf twice from two different written keys. */
function setAt(
  root: Record<string, unknown>,
  path: string,
  value: unknown,
  written: string,
  writtenAs: Map<string, string>,
): void {
  const segments = parsePath(path).map(String);
  let parent = root;
  for (const [index, segment] of segments.entries()) {
    const existing = parent[segment];
    if (index === segments.length - 1) {
      if (existing === undefined) {
        parent[segment] = value;
        writtenAs.set(path, written);
      } else if (isRecord(existing) && isRecord(value)) {
        for (const [key, child] of Object.entries(value)) {
          setAt(root, `${path}.${key}`, child, `${written}.${key}`, writtenAs);
        }
      } else {
        const previous = writtenKeyOf(path, writtenAs);
        const what = written === path ? 'is also set' : `sets ${path}, which is also set`;
        throw new InvalidPolicyError(written, `${what} by "${previous}"; keep one of them`, {
          conflictsWith: previous,
        });
      }
      return;
    }
    if (existing === undefined) {
      const child: Record<string, unknown> = {};
      parent[segment] = child;
      parent = child;
    } else if (isRecord(existing)) {
      parent = existing;
    } else {
      const where = segments.slice(0, index + 1).join('.');
      throw new InvalidPolicyError(written, `sets ${path}, but ${where} is not an object`);
    }
  }
}

/** `onRename(newName, key)` is told of each key renamed, so errors can name the key as written. */
function renameKeys(
  value: Record<string, unknown>,
  aliases: Readonly<Record<string, string>>,
  where: string,
  onRename: (name: string, key: string) => void = () => {},
): Record<string, unknown> {
  const renamed: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    const name = aliases[key] ?? key;
    if (name in renamed) {
      throw new InvalidPolicyError(`${where}.${key}`, `duplicates ${where}.${name}; keep one of them`);
    }
    if (name !== key) onRename(name, key);
    renamed[name] = field;
  }
  return renamed;
}

/**
 * digitorn's hook spellings (`cooldown`, `keep_recent`, `summary_max_tokens`, strategy `truncate`).
 * Renamed keys are recorded in `writtenAs` under their ctxkit path; inside digitorn's own block
 * (`runtime.hooks`) a strategy must be one of digitorn's, and an error lists those.
 */
function normalizeHooks(
  hooks: unknown,
  written: string,
  writtenAs: Map<string, string>,
  seedBlock: boolean,
): unknown {
  if (!Array.isArray(hooks)) return hooks;
  return hooks.map((hook, index) => {
    if (!isRecord(hook)) return hook;
    const where = `${written}[${index}]`;
    const path = `hooks[${index}]`;
    const normalized = renameKeys(hook, HOOK_KEY_ALIASES, where, (name, key) =>
      writtenAs.set(`${path}.${name}`, `${where}.${key}`),
    );
    const action = normalized.action;
    if (isRecord(action)) {
      const renamed = renameKeys(action, HOOK_ACTION_KEY_ALIASES, `${where}.action`, (name, key) =>
        writtenAs.set(`${path}.action.${name}`, `${where}.action.${key}`),
      );
      const strategy = renamed.strategy;
      if (seedBlock && strategy !== undefined && !DIGITORN_STRATEGIES.some((value) => value === strategy)) {
        throw seedValueError(
          `${where}.action.strategy`,
          DIGITORN_STRATEGIES,
          strategy,
          `${path}.action.strategy`,
        );
      }
      if (typeof strategy === 'string') {
        renamed.strategy = SUMMARIZE_STRATEGY_ALIASES[strategy] ?? strategy;
      }
      normalized.action = renamed;
    }
    return normalized;
  });
}

/** Seed value spellings accepted in ctxkit's own fields (archive.strategy `llm`, summarize.strategy `truncate`). */
function normalizeValues(value: Record<string, unknown>): void {
  const archive = value.archive;
  if (isRecord(archive) && typeof archive.strategy === 'string') {
    archive.strategy = ARCHIVE_STRATEGY_ALIASES[archive.strategy] ?? archive.strategy;
  }
  const summarize = value.summarize;
  if (isRecord(summarize) && typeof summarize.strategy === 'string') {
    summarize.strategy = SUMMARIZE_STRATEGY_ALIASES[summarize.strategy] ?? summarize.strategy;
  }
}

export function translateSeedNames(input: unknown, options: TranslateOptions = {}): TranslatedPolicy {
  if (!isRecord(input)) {
    throw new InvalidPolicyError('(policy)', `expected an object of settings, got ${describeValue(input)}`);
  }
  const requested = options.dialect ?? 'auto';
  if (requested !== 'auto' && requested !== 'ctxkit' && !SEED_DIALECTS.includes(requested)) {
    throw new InvalidPolicyError('dialect', `unknown dialect "${String(requested)}"`);
  }
  const entries = collectEntries(input);
  const inferred = inferDialect(entries);
  const value: Record<string, unknown> = {};
  const writtenAs = new Map<string, string>();
  let usedDialect: SeedDialect | undefined =
    requested !== 'auto' && requested !== 'ctxkit' ? requested : undefined;

  for (const entry of entries) {
    if (TOP_LEVEL_KEYS.has(entry.key)) {
      const field =
        entry.key === 'hooks'
          ? normalizeHooks(entry.value, entry.written, writtenAs, entry.impliesDialect === 'digitorn')
          : structuredClone(entry.value);
      setAt(value, entry.key, field, entry.written, writtenAs);
      continue;
    }
    const alias = SEED_ALIAS_BY_NAME.get(entry.key);
    if (alias === undefined) {
      // Unknown: left in place for the schema to report, under the name it was written with.
      value[entry.key] = entry.value;
      writtenAs.set(entry.key, entry.written);
      continue;
    }
    const dialect = chooseDialect(alias, entry, requested, inferred);
    usedDialect ??= dialect;
    const meaning = alias.meanings[dialect];
    if (meaning === undefined) continue;
    for (const [path, translated] of Object.entries(meaning.translate(entry.value, entry.written))) {
      setAt(value, path, translated, entry.written, writtenAs);
    }
    for (const [path, written] of Object.entries(meaning.subkeys?.(entry.value, entry.written) ?? {})) {
      writtenAs.set(path, written);
    }
  }
  normalizeValues(value);
  return { value, writtenAs, dialect: usedDialect ?? inferred };
}

/**
 * The key as written for a ctxkit path: the path itself, or the nearest recorded ancestor's written
 * key with the rest of the path appended (`hooks[0].on` written under `runtime.hooks`).
 */
export function writtenKeyOf(path: string, writtenAs: ReadonlyMap<string, string>): string {
  const segments = parsePath(path);
  for (let length = segments.length; length > 0; length--) {
    const ancestor = formatPath(segments.slice(0, length));
    const written = writtenAs.get(ancestor);
    if (written === undefined) continue;
    const rest = formatPath(segments.slice(length));
    if (rest === '') return written;
    return rest.startsWith('[') ? `${written}${rest}` : `${written}.${rest}`;
  }
  return path;
}
