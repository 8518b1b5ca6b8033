/**
 * Every corpus session survives every format: corpus → X → ctxkit must give back the same transcript.
 *
 * Normalizations, and where they apply:
 * - Anthropic carries tool arguments as objects, so argument text comes back re-serialized
 *   (`{"a": 1}` → `{"a":1}`): arguments are compared as JSON there. Ids still match, because a stable id
 *   reads arguments as JSON.
 * - Everything else (system text, roles, kinds, texts, reasoning, call id/name/args, result
 *   callId/name/content/isError, ids, seq) is compared exactly, for every format.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../core/canonical-json.ts';
import type { Transcript } from '../core/message.ts';
import { fromAnthropicMessages, toAnthropicMessages } from './anthropic-messages.ts';
import { parseCorpusJsonl, toCorpusJsonl } from './corpus.ts';
import { type LoadedTranscript, loadTranscriptFile, loadTranscripts } from './load-transcript.ts';
import { fromOpenAIChat, toOpenAIChat } from './openai-chat.ts';

// Resolved from this file: the corpus fixtures (fixtures/corpus).
const CORPUS_DIR = fileURLToPath(new URL('../../fixtures/corpus', import.meta.url));

interface ManifestEntry {
  file: string;
  messages: number;
  tool_calls: number;
  tool_msgs: number;
}

const manifest = JSON.parse(await readFile(join(CORPUS_DIR, 'manifest.json'), 'utf8')) as ManifestEntry[];
const sessions = await loadTranscripts(CORPUS_DIR);
const byName = new Map(sessions.map((session) => [basename(session.file), session]));

/** Arguments as canonical JSON (when they are JSON), everything else as is. */
function argsAsJson(transcript: Transcript): Transcript {
  return JSON.parse(
    JSON.stringify(transcript, (key, value: unknown) => {
      if (key !== 'args' || typeof value !== 'string') return value;
      try {
        return canonicalJson(JSON.parse(value));
      } catch {
        return value;
      }
    }),
  ) as Transcript;
}

function counts(transcript: Transcript) {
  let calls = 0;
  let results = 0;
  for (const message of transcript.messages) {
    for (const part of message.parts) {
      if (part.type === 'tool-call') calls += 1;
      if (part.type === 'tool-result') results += 1;
    }
  }
  return { messages: transcript.system.length + transcript.messages.length, calls, results };
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ctxkit-corpus-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the corpus', () => {
  it('has 52 sessions, all loaded as corpus JSONL with the manifest counts', () => {
    expect(manifest).toHaveLength(52);
    expect(sessions).toHaveLength(52);
    for (const entry of manifest) {
      const session = byName.get(entry.file);
      expect(session?.format, entry.file).toBe('corpus');
      expect(counts(session?.transcript ?? { system: [], messages: [] }), entry.file).toEqual({
        messages: entry.messages,
        calls: entry.tool_calls,
        results: entry.tool_msgs,
      });
    }
  });

  it('loads the 979-message pi-mono session well under a second', async () => {
    const file = join(CORPUS_DIR, 'pi-mono__before-compaction.jsonl');
    await loadTranscriptFile(file); // warm-up: module and JIT
    const started = performance.now();
    const loaded = await loadTranscriptFile(file);
    const elapsed = performance.now() - started;
    expect(loaded.transcript.messages).toHaveLength(979);
    expect(elapsed).toBeLessThan(500);
  });
});

describe.each(manifest.map((entry) => entry.file))('%s', (name) => {
  const session = () => byName.get(name) as LoadedTranscript;

  it('round-trips through OpenAI chat exactly', async () => {
    const { transcript } = session();
    const wire = toOpenAIChat(transcript);
    expect(fromOpenAIChat(wire)).toEqual(transcript);
    // And through a file, with format detection.
    const file = join(dir, `${name}.openai.json`);
    await writeFile(file, JSON.stringify(wire));
    const loaded = await loadTranscriptFile(file);
    expect(loaded.format).toBe('openai-chat');
    expect(loaded.transcript).toEqual(transcript);
  });

  it('round-trips through Anthropic messages (arguments compared as JSON)', async () => {
    const { transcript } = session();
    const wire = toAnthropicMessages(transcript);
    const back = fromAnthropicMessages(wire);
    expect(argsAsJson(back)).toEqual(argsAsJson(transcript));
    expect(back.messages.map((message) => message.id)).toEqual(
      transcript.messages.map((message) => message.id),
    );
    const file = join(dir, `${name}.anthropic.json`);
    await writeFile(file, JSON.stringify(wire));
    const loaded = await loadTranscriptFile(file);
    // Without a system prompt and tool use, an Anthropic conversation is also a valid OpenAI one.
    const plain = transcript.system.length === 0 && counts(transcript).calls === 0;
    expect(loaded.format).toBe(plain ? 'openai-chat' : 'anthropic-messages');
    expect(argsAsJson(loaded.transcript)).toEqual(argsAsJson(transcript));
  });

  it('round-trips through corpus JSONL: same transcript, same lines modulo key order and spacing', async () => {
    const { transcript, file } = session();
    const written = toCorpusJsonl(transcript);
    expect(parseCorpusJsonl(written)).toEqual(transcript);
    const original = await readFile(file, 'utf8');
    const parse = (text: string) =>
      text
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as unknown);
    expect(parse(written)).toEqual(parse(original));
  });
});
