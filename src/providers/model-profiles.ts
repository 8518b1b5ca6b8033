import { nearestName } from '../core/policy/nearest-name.ts';

/**
 * What ctxkit knows about common models: the context window (input capacity), the maximum output,
 * and the exact tokenizer when one is public. The window is what thresholds are measured against,
 * so a wrong figure either compacts too early or lets requests overflow (deepagents: size to the
 * model's real loaded window; a local server's loaded num_ctx wins over any table — set
 * budget.contextWindow).
 *
 * Sources, checked 2025: the providers' model pages (OpenAI, Anthropic, Google AI, DeepSeek API
 * "Models & Pricing"), the Hugging Face model cards (Qwen, Llama, Mistral). Where a model has no
 * documented output cap (open weights served by many providers), `maxOutputTokens` is a reservation
 * typical of serving stacks and says so in `note`.
 */

export type TokenizerEncoding = 'o200k' | 'cl100k';
export type ModelVendor = 'openai' | 'anthropic' | 'google' | 'deepseek' | 'qwen' | 'meta' | 'mistral';

export interface ModelProfile {
  /** Canonical name, as the vendor's API spells it (without date suffix). */
  id: string;
  vendor: ModelVendor;
  contextWindow: number;
  maxOutputTokens: number;
  /** The exact tokenizer, when public; otherwise ctxkit calibrates a heuristic on reported usage. */
  encoding?: TokenizerEncoding;
  /** Other spellings that mean this model (`claude-4-sonnet`, `chatgpt-4o`). */
  aliases?: readonly string[];
  note?: string;
}

const OPEN_WEIGHTS_OUTPUT =
  'no model-defined output cap; 8192 is the reservation most serving stacks default to';

function openai(
  id: string,
  contextWindow: number,
  maxOutputTokens: number,
  more: Partial<ModelProfile> = {},
) {
  return { id, vendor: 'openai', contextWindow, maxOutputTokens, encoding: 'o200k', ...more } as const;
}

export const MODEL_PROFILES: readonly ModelProfile[] = [
  // OpenAI. o200k: GPT-4o, GPT-4.1, the o-series and GPT-5; cl100k: GPT-4 and GPT-3.5.
  openai('gpt-4o', 128_000, 16_384, { aliases: ['chatgpt-4o'] }),
  openai('gpt-4o-2024-05-13', 128_000, 4_096, { note: 'the first GPT-4o snapshot capped output at 4096' }),
  openai('gpt-4o-mini', 128_000, 16_384),
  openai('gpt-4.1', 1_047_576, 32_768),
  openai('gpt-4.1-mini', 1_047_576, 32_768),
  openai('gpt-4.1-nano', 1_047_576, 32_768),
  openai('o1', 200_000, 100_000),
  openai('o1-pro', 200_000, 100_000),
  openai('o1-mini', 128_000, 65_536),
  openai('o1-preview', 128_000, 32_768),
  openai('o3', 200_000, 100_000),
  openai('o3-pro', 200_000, 100_000),
  openai('o3-mini', 200_000, 100_000),
  openai('o4-mini', 200_000, 100_000),
  openai('codex-mini', 200_000, 100_000),
  openai('gpt-5', 400_000, 128_000, { note: 'also gpt-5.1 / gpt-5.2 and their -codex variants' }),
  openai('gpt-5-mini', 400_000, 128_000),
  openai('gpt-5-nano', 400_000, 128_000),
  openai('gpt-5-codex', 400_000, 128_000),
  openai('gpt-5-chat', 128_000, 16_384, { note: 'gpt-5-chat-latest, the ChatGPT model' }),
  openai('gpt-5.1-chat', 128_000, 16_384),
  openai('gpt-5.2-chat', 128_000, 16_384),
  openai('gpt-4', 8_192, 8_192, { encoding: 'cl100k' }),
  openai('gpt-4-turbo', 128_000, 4_096, {
    encoding: 'cl100k',
    aliases: ['gpt-4-turbo-preview', 'gpt-4-1106-preview', 'gpt-4-0125-preview'],
  }),
  openai('gpt-3.5-turbo', 16_385, 4_096, { encoding: 'cl100k' }),

  // Anthropic: 200k windows (1M for Sonnet 4 / 4.5 only behind a beta header, not assumed).
  { id: 'claude-3-haiku', vendor: 'anthropic', contextWindow: 200_000, maxOutputTokens: 4_096 },
  { id: 'claude-3-opus', vendor: 'anthropic', contextWindow: 200_000, maxOutputTokens: 4_096 },
  { id: 'claude-3-5-sonnet', vendor: 'anthropic', contextWindow: 200_000, maxOutputTokens: 8_192 },
  { id: 'claude-3-5-haiku', vendor: 'anthropic', contextWindow: 200_000, maxOutputTokens: 8_192 },
  {
    id: 'claude-3-7-sonnet',
    vendor: 'anthropic',
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    note: '128k output with the output-128k beta header',
  },
  {
    id: 'claude-sonnet-4',
    vendor: 'anthropic',
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    aliases: ['claude-4-sonnet'],
  },
  {
    id: 'claude-sonnet-4-5',
    vendor: 'anthropic',
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    aliases: ['claude-4.5-sonnet'],
  },
  {
    id: 'claude-opus-4',
    vendor: 'anthropic',
    contextWindow: 200_000,
    maxOutputTokens: 32_000,
    aliases: ['claude-4-opus'],
  },
  {
    id: 'claude-opus-4-1',
    vendor: 'anthropic',
    contextWindow: 200_000,
    maxOutputTokens: 32_000,
    aliases: ['claude-4.1-opus'],
  },
  {
    id: 'claude-sonnet-4-6',
    vendor: 'anthropic',
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    aliases: ['claude-4.6-sonnet'],
  },
  { id: 'claude-opus-4-5', vendor: 'anthropic', contextWindow: 200_000, maxOutputTokens: 64_000 },
  { id: 'claude-haiku-4-5', vendor: 'anthropic', contextWindow: 200_000, maxOutputTokens: 64_000 },

  // Google Gemini.
  { id: 'gemini-1.5-pro', vendor: 'google', contextWindow: 2_097_152, maxOutputTokens: 8_192 },
  { id: 'gemini-1.5-flash', vendor: 'google', contextWindow: 1_048_576, maxOutputTokens: 8_192 },
  { id: 'gemini-1.5-flash-8b', vendor: 'google', contextWindow: 1_048_576, maxOutputTokens: 8_192 },
  { id: 'gemini-2.0-flash', vendor: 'google', contextWindow: 1_048_576, maxOutputTokens: 8_192 },
  { id: 'gemini-2.0-flash-lite', vendor: 'google', contextWindow: 1_048_576, maxOutputTokens: 8_192 },
  {
    id: 'gemini-2.0-pro',
    vendor: 'google',
    contextWindow: 2_097_152,
    maxOutputTokens: 8_192,
    note: 'experimental release (gemini-2.0-pro-exp)',
  },
  { id: 'gemini-2.5-pro', vendor: 'google', contextWindow: 1_048_576, maxOutputTokens: 65_536 },
  { id: 'gemini-2.5-flash', vendor: 'google', contextWindow: 1_048_576, maxOutputTokens: 65_536 },
  { id: 'gemini-2.5-flash-lite', vendor: 'google', contextWindow: 1_048_576, maxOutputTokens: 65_536 },

  // DeepSeek API (V3.x): 128k context; chat output up to 8k, reasoner up to 64k (earlier: 64k context, 8k output).
  {
    id: 'deepseek-chat',
    vendor: 'deepseek',
    contextWindow: 128_000,
    maxOutputTokens: 8_192,
    aliases: ['deepseek-v3'],
  },
  {
    id: 'deepseek-reasoner',
    vendor: 'deepseek',
    contextWindow: 128_000,
    maxOutputTokens: 65_536,
    aliases: ['deepseek-r1'],
  },

  // Qwen (open weights). Qwen2.5 / Qwen3 load 32,768 natively; 131,072 needs YaRN rope scaling
  // enabled on the server (then set budget.contextWindow). The 2507 and Coder releases are 256k native.
  {
    id: 'qwen2.5',
    vendor: 'qwen',
    contextWindow: 32_768,
    maxOutputTokens: 8_192,
    note: 'generation up to 8192 tokens (model card); 131072 window with YaRN',
  },
  {
    id: 'qwen2.5-coder',
    vendor: 'qwen',
    contextWindow: 32_768,
    maxOutputTokens: 8_192,
    note: '131072 with YaRN',
  },
  {
    id: 'qwen3',
    vendor: 'qwen',
    contextWindow: 32_768,
    maxOutputTokens: 8_192,
    note: `131072 with YaRN; ${OPEN_WEIGHTS_OUTPUT}`,
  },
  { id: 'qwen3-235b-a22b-instruct-2507', vendor: 'qwen', contextWindow: 262_144, maxOutputTokens: 16_384 },
  { id: 'qwen3-235b-a22b-thinking-2507', vendor: 'qwen', contextWindow: 262_144, maxOutputTokens: 32_768 },
  { id: 'qwen3-30b-a3b-instruct-2507', vendor: 'qwen', contextWindow: 262_144, maxOutputTokens: 16_384 },
  { id: 'qwen3-30b-a3b-thinking-2507', vendor: 'qwen', contextWindow: 262_144, maxOutputTokens: 32_768 },
  {
    id: 'qwen3-coder',
    vendor: 'qwen',
    contextWindow: 262_144,
    maxOutputTokens: 65_536,
    note: '262144 native, 1M with YaRN',
  },

  // Meta Llama (open weights; providers often serve less than the model supports).
  { id: 'llama-3', vendor: 'meta', contextWindow: 8_192, maxOutputTokens: 2_048, note: OPEN_WEIGHTS_OUTPUT },
  {
    id: 'llama-3.1',
    vendor: 'meta',
    contextWindow: 131_072,
    maxOutputTokens: 8_192,
    note: OPEN_WEIGHTS_OUTPUT,
  },
  {
    id: 'llama-3.2',
    vendor: 'meta',
    contextWindow: 131_072,
    maxOutputTokens: 8_192,
    note: OPEN_WEIGHTS_OUTPUT,
  },
  {
    id: 'llama-3.3',
    vendor: 'meta',
    contextWindow: 131_072,
    maxOutputTokens: 8_192,
    note: OPEN_WEIGHTS_OUTPUT,
  },
  {
    id: 'llama-4-scout',
    vendor: 'meta',
    contextWindow: 10_485_760,
    maxOutputTokens: 8_192,
    note: `10M per Meta; hosted endpoints usually serve 128k–1M, so set budget.contextWindow; ${OPEN_WEIGHTS_OUTPUT}`,
  },
  {
    id: 'llama-4-maverick',
    vendor: 'meta',
    contextWindow: 1_048_576,
    maxOutputTokens: 8_192,
    note: OPEN_WEIGHTS_OUTPUT,
  },

  // Mistral (the API documents windows, not output caps).
  {
    id: 'mistral-large',
    vendor: 'mistral',
    contextWindow: 131_072,
    maxOutputTokens: 8_192,
    note: OPEN_WEIGHTS_OUTPUT,
  },
  {
    id: 'mistral-medium',
    vendor: 'mistral',
    contextWindow: 131_072,
    maxOutputTokens: 8_192,
    note: OPEN_WEIGHTS_OUTPUT,
  },
  {
    id: 'mistral-small',
    vendor: 'mistral',
    contextWindow: 131_072,
    maxOutputTokens: 8_192,
    note: 'Small 3.1 and later',
  },
  {
    id: 'mistral-small-2501',
    vendor: 'mistral',
    contextWindow: 32_768,
    maxOutputTokens: 8_192,
    note: 'Small 3.0',
  },
  { id: 'mistral-small-2409', vendor: 'mistral', contextWindow: 32_768, maxOutputTokens: 8_192 },
  {
    id: 'codestral',
    vendor: 'mistral',
    contextWindow: 256_000,
    maxOutputTokens: 8_192,
    note: 'Codestral 25.01 and later',
  },
  { id: 'codestral-2405', vendor: 'mistral', contextWindow: 32_768, maxOutputTokens: 8_192 },
  {
    id: 'mistral-nemo',
    vendor: 'mistral',
    contextWindow: 131_072,
    maxOutputTokens: 8_192,
    aliases: ['open-mistral-nemo'],
    note: OPEN_WEIGHTS_OUTPUT,
  },
];

/**
 * A model name as comparable tokens: lower case, path and `:tag` dropped, split on punctuation and
 * between letters and digits. `openai/gpt-4o-2024-08-06` → gpt 4 o 2024 08 06; `claude-3.5-sonnet`
 * and `claude-3-5-sonnet-20241022` share claude 3 5 sonnet; `llama3.3:70b` → llama 3 3.
 */
export function modelNameTokens(model: string): string[] {
  let name = model.trim().toLowerCase();
  if (name.startsWith('ft:')) name = name.slice(3); // OpenAI fine-tunes: ft:gpt-4o-mini:org::id
  name = name.slice(name.lastIndexOf('/') + 1);
  const tag = name.indexOf(':');
  if (tag >= 0) name = name.slice(0, tag);
  return name.split(/[^a-z0-9]+|(?<=[a-z])(?=[0-9])|(?<=[0-9])(?=[a-z])/).filter((token) => token.length > 0);
}

interface IndexedName {
  tokens: readonly string[];
  profile: ModelProfile;
}

const INDEX: readonly IndexedName[] = MODEL_PROFILES.flatMap((profile) =>
  [profile.id, ...(profile.aliases ?? [])].map((name) => ({ tokens: modelNameTokens(name), profile })),
);

function startsWith(tokens: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= tokens.length && prefix.every((token, index) => tokens[index] === token);
}

function longestPrefixMatch(tokens: readonly string[]): ModelProfile | undefined {
  let best: IndexedName | undefined;
  for (const entry of INDEX) {
    if (
      startsWith(tokens, entry.tokens) &&
      (best === undefined || entry.tokens.length > best.tokens.length)
    ) {
      best = entry;
    }
  }
  return best?.profile;
}

/**
 * The profile for a model name, tolerant of provider prefixes (`openai/`, `openrouter-`,
 * `us.anthropic.`, `meta-llama/Meta-…`), date and version suffixes (`-2024-08-06`, `-20241022`,
 * `-latest`, `-v2:0`) and size tags (`:70b`). The longest known name that begins the given one wins,
 * so `gpt-4o-mini-2024-07-18` is gpt-4o-mini, not gpt-4o. Up to two leading words that match
 * nothing (a provider or router name) are skipped.
 */
export function findModelProfile(model: string): ModelProfile | undefined {
  const tokens = modelNameTokens(model);
  for (let skip = 0; skip <= 2 && skip < tokens.length; skip++) {
    if (skip > 0 && /^[0-9]/.test(tokens[skip - 1] ?? '')) break; // never skip a version number
    const found = longestPrefixMatch(tokens.slice(skip));
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The closest known model name, for "did you mean" when a name matches no profile. */
export function suggestModelName(model: string): string | undefined {
  const names = MODEL_PROFILES.flatMap((profile) => [profile.id, ...(profile.aliases ?? [])]);
  const tokens = modelNameTokens(model);
  // Compare like with like: drop what the lookup would skip anyway (provider prefix, date suffix).
  const core = tokens.filter((token) => !/^\d{4,}$/.test(token)).join('-');
  return nearestName(core, names) ?? nearestName(model, names);
}

/** The exact tokenizer for a model, when one is public (OpenAI models); otherwise undefined. */
export function tokenizerEncodingFor(model: string): TokenizerEncoding | undefined {
  return findModelProfile(model)?.encoding;
}
