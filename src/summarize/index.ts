export * from './extractive-summarizer.ts';
export * from './model-summarizer.ts';
export * from './render-summary.ts';
export * from './summarizer.ts';
export * from './summary-prompt.ts';
export * from './summary-report.ts';
export { SECTION_TITLES, type SummarySections, sectionsFrom } from './summary-sections.ts';
