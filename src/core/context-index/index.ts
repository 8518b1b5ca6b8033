export * from './clip-index-lines.ts';
export * from './render-memory-index.ts';
export * from './render-skills-index.ts';
export * from './system-with-indexes.ts';
