/**
 * How well `isContextOverflow` recognizes real provider errors it was not developed against: the held-out
 * set in fixtures/overflow-messages (context overflows from many providers and serving stacks, and
 * look-alikes that are not overflows: quotas, credits, output-limit parameters, overload). Every entry is
 * scored twice, from the same rebuilt answer: as the error the provider's SDK throws, and as the
 * ModelCallError ctxkit's own clients build. Prints recall, false positives, a per-provider table and
 * every miss; exits 0 whatever the numbers, non-zero only on a malformed set file.
 *
 *   npx tsx bench/overflow-recognition.ts [set.json]
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { APIError as AnthropicAPIError } from '@anthropic-ai/sdk';
import { APIError as OpenAIAPIError } from 'openai';
import { isContextOverflow } from '../src/providers/is-context-overflow.ts';
import { modelCallErrorFrom } from '../src/providers/read-provider-error.ts';
import { percent, printTable } from './token-bench-support.ts';

/** One provider answer, as its source shows it (see fixtures/overflow-messages/README.md). */
export interface OverflowEntry {
  provider: string;
  /** Where the text was seen: documentation page, issue, forum post or SDK source. */
  source: string;
  status: number | null;
  code: string | null;
  type: string | null;
  message: string;
  overflow: boolean;
  note?: string;
}

export const HELD_OUT_SET = resolve(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  'fixtures',
  'overflow-messages',
  'held-out.json',
);

/** Reads and checks the set; a malformed file throws, naming every bad entry and field. */
export function readOverflowSet(path: string = HELD_OUT_SET): OverflowEntry[] {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (cause) {
    throw new Error(`${path}: not a readable JSON file (${String(cause)})`);
  }
  if (!Array.isArray(json)) throw new Error(`${path}: expected a JSON array of entries`);
  const problems = json.flatMap((entry: unknown, index) =>
    entryProblems(entry).map((problem) => `entry ${index}: ${problem}`),
  );
  if (problems.length > 0) throw new Error(`${path}: malformed set\n  ${problems.join('\n  ')}`);
  return json as OverflowEntry[];
}

function entryProblems(entry: unknown): string[] {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return ['not an object'];
  const record = entry as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of ['provider', 'source', 'message']) {
    if (typeof record[key] !== 'string' || record[key] === '')
      problems.push(`${key} must be a non-empty string`);
  }
  if (record.status !== null && !Number.isInteger(record.status))
    problems.push('status must be an integer or null');
  for (const key of ['code', 'type']) {
    if (record[key] !== null && typeof record[key] !== 'string')
      problems.push(`${key} must be a string or null`);
  }
  if (typeof record.overflow !== 'boolean') problems.push('overflow must be a boolean');
  if ('note' in record && typeof record.note !== 'string')
    problems.push('note, when present, must be a string');
  return problems;
}

/**
 * The client a provider's errors reach the caller through: Anthropic's SDK (MiniMax's endpoint speaks
 * Anthropic's API), Google's GenAI SDK, the AWS SDK, or a plain fetch wrapper; every other provider
 * through openai-node, its API being OpenAI-compatible.
 */
type Client = 'openai' | 'anthropic' | 'google' | 'aws' | 'fetch';
const CLIENT_BY_PROVIDER: Readonly<Record<string, Client>> = {
  Anthropic: 'anthropic',
  MiniMax: 'anthropic',
  'Google Gemini API': 'google',
  'Google Vertex AI': 'google',
  'Amazon Bedrock': 'aws',
  Cohere: 'fetch',
  'IBM watsonx.ai': 'fetch',
};

/** Stacks whose answers the sources show in another body shape than `{error: {message, type, code}}`. */
const BODY_BY_PROVIDER: Readonly<Record<string, 'top-level' | 'string' | 'watsonx'>> = {
  vLLM: 'top-level',
  SGLang: 'top-level',
  FastChat: 'top-level',
  'LM Studio': 'string',
  'IBM watsonx.ai': 'watsonx',
};

/** The JSON body the provider answered with, rebuilt from the entry's fields. */
export function providerBody(entry: OverflowEntry): unknown {
  const { message, type, code, status } = entry;
  const client = CLIENT_BY_PROVIDER[entry.provider] ?? 'openai';
  if (client === 'anthropic') return { type: 'error', error: { ...(type !== null && { type }), message } };
  if (client === 'google') return { error: { code: status, message, status: type } };
  if (client === 'aws') return { message };
  switch (BODY_BY_PROVIDER[entry.provider]) {
    case 'top-level':
      return { object: 'error', message, type, param: null, code };
    case 'string':
      return { error: message };
    case 'watsonx':
      return { errors: [{ code, message }], status_code: status };
    default:
      return { error: { message, type, param: null, code } };
  }
}

/** The error the provider's SDK throws for this answer (a stream error when the status is unknown). */
export function sdkError(entry: OverflowEntry): unknown {
  const body = providerBody(entry) as Record<string, unknown>;
  const status = entry.status ?? undefined;
  switch (CLIENT_BY_PROVIDER[entry.provider] ?? 'openai') {
    case 'anthropic':
      return status === undefined
        ? new AnthropicAPIError(undefined, body, undefined, undefined)
        : AnthropicAPIError.generate(status, body, undefined, new Headers());
    case 'google':
      // @google/genai's ApiError: the whole body as JSON text in the message, the status beside it.
      return Object.assign(new Error(JSON.stringify(body)), { name: 'ApiError', status });
    case 'aws':
      // AWS SDK v3 ServiceException: the error type as name ('UnknownError' when the answer names none).
      return Object.assign(new Error(entry.message), {
        name: entry.type ?? 'UnknownError',
        $fault: 'client',
        $metadata: { httpStatusCode: status },
      });
    case 'fetch':
      return Object.assign(new Error(entry.message), { status, code: entry.code, type: entry.type, body });
    default:
      // openai-node keeps only `body.error` of an HTTP answer: a top-level error body leaves it no text.
      return status === undefined
        ? new OpenAIAPIError(undefined, body.error ?? body, undefined, undefined)
        : OpenAIAPIError.generate(status, body, undefined, new Headers());
  }
}

/** The ModelCallError ctxkit's own clients build from the same answer. */
export function clientError(entry: OverflowEntry): Error {
  const body = providerBody(entry);
  return modelCallErrorFrom(entry.provider, entry.status ?? undefined, JSON.stringify(body), body);
}

const WAYS = [
  { name: 'as the SDK throws it', short: 'SDK', build: sdkError },
  { name: 'as a ctxkit ModelCallError', short: 'ctxkit', build: clientError },
] as const;

/** Control characters written as escapes, so a message prints on one line. */
function escapeControl(text: string): string {
  let escaped = '';
  for (const char of text) {
    const code = char.charCodeAt(0);
    const control = code < 0x20 || code === 0x7f;
    escaped += control ? (NAMED_ESCAPES[char] ?? `\\u${code.toString(16).padStart(4, '0')}`) : char;
  }
  return escaped;
}

const NAMED_ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));
const ratio = (hits: number, total: number) => `${hits}/${total} (${percent(hits / total)})`;

function main(): void {
  const path = process.argv[2] ?? HELD_OUT_SET;
  let entries: OverflowEntry[];
  try {
    entries = readOverflowSet(path);
  } catch (error) {
    console.error(messageOf(error));
    process.exit(1);
  }
  const overflows = entries.filter((entry) => entry.overflow);
  const lookAlikes = entries.filter((entry) => !entry.overflow);
  const providers = [...new Set(entries.map((entry) => entry.provider))].sort();
  const recognized = WAYS.map(({ build }) => entries.map((entry) => isContextOverflow(build(entry))));
  const count = (way: number, subset: readonly OverflowEntry[]) =>
    subset.filter((entry) => recognized[way]?.[entries.indexOf(entry)]).length;

  console.log(
    `isContextOverflow on ${path}: ${entries.length} entries, ${overflows.length} overflows from ` +
      `${new Set(overflows.map((entry) => entry.provider)).size} providers, ${lookAlikes.length} look-alikes\n`,
  );
  printTable(
    ['', 'overflow recall', 'false positives'],
    WAYS.map(({ name }, way) => [
      name,
      ratio(count(way, overflows), overflows.length),
      ratio(count(way, lookAlikes), lookAlikes.length),
    ]),
  );

  console.log(
    `\nPer provider: recognized overflows / overflows, flagged look-alikes / look-alikes ` +
      `(${WAYS.map(({ short, name }) => `${short}: ${name}`).join('; ')})\n`,
  );
  printTable(
    ['provider', ...WAYS.flatMap(({ short }) => [`${short} recall`, `${short} false positives`])],
    providers.map((provider) => {
      const own = (subset: readonly OverflowEntry[]) => subset.filter((entry) => entry.provider === provider);
      const cell = (way: number, subset: readonly OverflowEntry[]) =>
        own(subset).length === 0 ? '—' : `${count(way, own(subset))}/${own(subset).length}`;
      return [provider, ...WAYS.flatMap((_, way) => [cell(way, overflows), cell(way, lookAlikes)])];
    }),
  );

  WAYS.forEach(({ name, build }, way) => {
    const wrong = entries.filter((entry, index) => recognized[way]?.[index] !== entry.overflow);
    console.log(`\nMisses and false positives ${name}: ${wrong.length}`);
    for (const entry of wrong) {
      const kind = entry.overflow ? 'miss' : 'false positive';
      console.log(
        `- ${kind}, ${entry.provider} ${entry.status ?? '(no status)'}: ${escapeControl(entry.message)}`,
      );
      const seen = messageOf(build(entry));
      if (!seen.includes(entry.message)) console.log(`    the error's message: ${escapeControl(seen)}`);
    }
  });
}

if (import.meta.url === `file://${process.argv[1]}`) main();
