import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCorpusJsonl } from '../adapters/corpus.ts';
import type { Transcript } from '../core/message.ts';

/** The corpus sessions, kept in the repository as fixtures (`fixtures/corpus`, with their manifest and licenses). */
export const CORPUS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../fixtures/corpus');

export function corpusFiles(): string[] {
  return readdirSync(CORPUS_DIR)
    .filter((name) => name.endsWith('.jsonl'))
    .sort();
}

export function loadCorpusSession(name: string): Transcript {
  const file = join(CORPUS_DIR, name);
  return parseCorpusJsonl(readFileSync(file, 'utf8'), file);
}

/** The 979-message pi coding-agent session: the longest, with the largest tool outputs. */
export const LONG_SESSION = 'pi-mono__before-compaction.jsonl';
