import { oneLine } from './cut-text.ts';
import type { SummarySection } from './summarizer.ts';
import { emptySections, itemKey, type SummarySections } from './summary-sections.ts';

/**
 * Sections whose items a model may not silently drop: what the user asked for, which files were touched,
 * which errors happened, which commands ran. Decisions, facts and plan items can legitimately be
 * superseded, so the model's word stands for those.
 */
export const REMERGED_SECTIONS: readonly SummarySection[] = ['requests', 'files', 'errors', 'commands'];

/** How much of an item must appear in the reply for it to count as kept (models append "(fixed)" etc.). */
const KEY_CHARS = 80;

export interface RemergedSections {
  sections: SummarySections;
  /** Per section, how many leading items were re-added from the previous summary (lower priority). */
  readded: Record<SummarySection, number>;
}

/**
 * The model's sections with the previous summary merged back mechanically: the previous intent stays
 * verbatim, and previous items of `REMERGED_SECTIONS` that the reply no longer mentions anywhere are
 * re-added in front (they are older), marked so the budget keeps them only after the model's own items.
 */
export function remergePrevious(
  parsed: SummarySections,
  previous: SummarySections,
  reply: string,
): RemergedSections {
  const sections = emptySections();
  const readded = {} as Record<SummarySection, number>;
  // The reply as searched, made only when an item is not among the reply's own (most are copied verbatim).
  let haystack: string | undefined;
  // Each item is keyed by de-duplication and again by the merge: keyed once.
  const keys = new Map<string, string>();
  const keyOf = (item: string): string => {
    let key = keys.get(item);
    if (key === undefined) {
      key = itemKey(item);
      keys.set(item, key);
    }
    return key;
  };
  for (const section of Object.keys(sections) as SummarySection[]) {
    const own = dedupe(parsed[section], keyOf);
    readded[section] = 0;
    if (section === 'intent') {
      sections.intent = previous.intent[0] !== undefined ? [previous.intent[0]] : own.slice(0, 1);
      continue;
    }
    if (!REMERGED_SECTIONS.includes(section)) {
      sections[section] = own;
      continue;
    }
    const listed = new Set(parsed[section]);
    const mentioned = (item: string): boolean => {
      if (listed.has(item)) return true;
      haystack ??= normalize(reply);
      return haystack.includes(containmentKey(section, item));
    };
    const missing = dedupe(
      previous[section].filter((item) => !mentioned(item)),
      keyOf,
    );
    const missingKeys = new Set(missing.map(keyOf));
    sections[section] = [...missing, ...own.filter((item) => !missingKeys.has(keyOf(item)))];
    readded[section] = missing.length;
  }
  return { sections, readded };
}

/** The part of an item that must survive in the reply: a file's path, an error's message. */
function containmentKey(section: SummarySection, item: string): string {
  let core = item;
  if (section === 'files') core = item.replace(/ \([a-z, ]+\)$/, '');
  if (section === 'errors') core = item.slice(item.indexOf(' → ') + 1).replace(/^→ /, '');
  return normalize(core).slice(0, KEY_CHARS);
}

function normalize(text: string): string {
  return oneLine(text.replace(/`/g, '')).toLowerCase();
}

function dedupe(items: readonly string[], keyOf: (item: string) => string): string[] {
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const item of items) {
    const key = keyOf(item);
    if (!key || seen.has(key)) continue;
    seen.add(key);
    kept.push(item);
  }
  return kept;
}
