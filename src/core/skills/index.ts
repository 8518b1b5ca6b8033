export * from './parse-skill-file.ts';
export * from './skill-name.ts';
export * from './skill-relative-path.ts';
export type * from './skill-source.ts';
