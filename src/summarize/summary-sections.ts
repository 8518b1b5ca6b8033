import { COLLAPSIBLE_WHITESPACE } from './cut-text.ts';
import { SUMMARY_SECTIONS, type SummarySection } from './summarizer.ts';

/** A summary's content: per section, items oldest first. Plain strings so `Summary.sections` stores them. */
export type SummarySections = Record<SummarySection, string[]>;

/** Headings as rendered and as the model is asked to write them; the parser reads them back. */
export const SECTION_TITLES: Readonly<Record<SummarySection, string>> = {
  intent: 'Session intent',
  requests: 'User requests',
  decisions: 'Decisions',
  facts: 'Key facts',
  files: 'Files touched',
  commands: 'Commands run',
  errors: 'Errors',
  plan: 'Plan / todo',
  state: 'Current state',
  next: 'Next steps',
};

/** Sections rendered as a paragraph rather than a bullet list. */
export const PARAGRAPH_SECTIONS: ReadonlySet<SummarySection> = new Set(['intent', 'state']);

/**
 * Longest item per section, in runes. Long enough to keep an error line or a request in the user's own
 * words, short enough that one pasted log cannot eat a summary's whole budget.
 */
export const SECTION_ITEM_MAX_CHARS: Readonly<Record<SummarySection, number>> = {
  intent: 600,
  requests: 300,
  decisions: 240,
  facts: 240,
  files: 200,
  commands: 200,
  errors: 240,
  plan: 160,
  state: 600,
  next: 240,
};

/**
 * Items kept per section before budgeting. A summary listing more than this many files or commands is
 * no longer read; the bound also keeps fitting cheap on a thousand-message session.
 */
export const DEFAULT_MAX_ITEMS_PER_SECTION = 40;

export function emptySections(): SummarySections {
  const sections = {} as SummarySections;
  for (const section of SUMMARY_SECTIONS) sections[section] = [];
  return sections;
}

/** Reads `Summary.sections` (a plain record that may come from storage) into the known sections. */
export function sectionsFrom(
  record: Readonly<Record<string, readonly string[]>> | undefined,
): SummarySections {
  const sections = emptySections();
  if (!record) return sections;
  for (const section of SUMMARY_SECTIONS) {
    const items = record[section];
    if (Array.isArray(items))
      sections[section] = items.filter((item) => typeof item === 'string' && item.trim());
  }
  return sections;
}

const TRAILING_NOISE = /[\s.;:,!…]/;

/**
 * Identity for de-duplication: case, whitespace and trailing punctuation do not make a new fact. Every
 * summary keys each of its items several times over, and most need no more than lowercasing: whitespace
 * and trailing noise are rewritten only where they are.
 */
export function itemKey(item: string): string {
  const key = item.toLowerCase().replace(COLLAPSIBLE_WHITESPACE, ' ');
  let end = key.length;
  while (end > 0 && TRAILING_NOISE.test(key[end - 1] as string)) end--;
  return (end < key.length ? key.slice(0, end) : key).trim();
}
