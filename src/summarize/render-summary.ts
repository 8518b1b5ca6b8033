import type { SummarySection } from './summarizer.ts';
import { SUMMARY_SECTIONS } from './summarizer.ts';
import { PARAGRAPH_SECTIONS, SECTION_TITLES, type SummarySections } from './summary-sections.ts';

/**
 * The summary as the model reads it: a title, the offloaded transcript's path when there is one (seed
 * deepagents: "the summary embeds that path"), then one `##` heading per non-empty section. The text is exactly
 * the concatenation of `renderHeader`, `renderSectionHeading` and `renderItem` pieces, so the fitter can
 * price each piece on its own.
 */

export interface SummaryHeader {
  /** Where the summarized transcript was offloaded. */
  historyRef?: string;
}

export const SUMMARY_TITLE = '# Summary of the conversation so far';

export function renderHeader(header: SummaryHeader): string {
  const ref = header.historyRef
    ? `Full transcript of the summarized messages: ${header.historyRef} (read it for details left out here)\n`
    : '';
  return `${SUMMARY_TITLE}\n${ref}`;
}

export function renderSectionHeading(section: SummarySection): string {
  return `\n## ${SECTION_TITLES[section]}\n`;
}

/** One item's line. A paragraph after the first in its section gets a blank line before it. */
export function renderItem(section: SummarySection, item: string, first = true): string {
  if (PARAGRAPH_SECTIONS.has(section)) return first ? `${item}\n` : `\n${item}\n`;
  if (section === 'commands' && !item.includes('`')) return `- \`${item}\`\n`;
  return `- ${item}\n`;
}

export function renderSummaryText(header: SummaryHeader, sections: SummarySections): string {
  return `${renderHeader(header)}${renderSections(sections)}`.trimEnd();
}

/** The sections alone, without the title: how the previous summary is shown to the summarizing model. */
export function renderSections(sections: SummarySections): string {
  let text = '';
  for (const section of SUMMARY_SECTIONS) {
    const items = sections[section];
    if (items.length === 0) continue;
    text += renderSectionHeading(section);
    items.forEach((item, index) => {
      text += renderItem(section, item, index === 0);
    });
  }
  return text;
}
