import { existsSync, readFileSync } from 'node:fs';
import { parseCorpusJsonl } from '../../adapters/corpus.ts';
import type { Message } from '../../core/message.ts';
import { CORPUS_DIR as TESTING_CORPUS_DIR } from '../../testing/corpus.ts';

/**
 * Test support only (planners never touch the disk): real sessions from the corpus fixtures
 * (`fixtures/corpus`), read at test time.
 */

export const CORPUS_DIR = `${TESTING_CORPUS_DIR}/`;

export const hasCorpusFile = (file: string): boolean => existsSync(`${CORPUS_DIR}${file}`);

export function readCorpusSession(file: string): Message[] {
  return parseCorpusJsonl(readFileSync(`${CORPUS_DIR}${file}`, 'utf8'), file).messages;
}

/** The corpus sessions the planner tests run on. */
export const CORPUS = {
  /** 979 messages, 60 turns, 448 results, ten over 20,000 characters (pi coding agent). */
  piMono: 'pi-mono__before-compaction.jsonl',
  /** A single long agent turn: 46 messages, 22 results, three over 20,000 characters. */
  openhands: 'openhands__multi_swe_bench_ponylang__ponyc-4595.jsonl',
  /** A customer-service dialogue: 8 turns, 23 tool calls. */
  tauBench: 'tau-bench__gpt-4o-airline_task33_trial0.jsonl',
} as const;
