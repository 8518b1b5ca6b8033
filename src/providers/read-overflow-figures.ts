/**
 * The token figures an overflow message gives: what the request needed, the window it was held to, and
 * the part of the request reserved for output. Read first from the exact shapes providers write, then
 * from any figure whose neighbouring words say which side it is on ("maximum context length is 8192",
 * "the request contains 9000 tokens", "limit of 4096", "requested: 5000").
 */
import { tokenizeErrorText, type Word } from './tokenize-error-text.ts';

export interface OverflowTokens {
  /** Tokens the request needed: input, plus the reserved output when the message counts it. */
  requested?: number;
  /** The window the provider enforced. */
  limit?: number;
  /** The part of `requested` reserved for output (`max_tokens`), when the message breaks it out. */
  completion?: number;
}

/** How many words apart a request's figure and a limit's may stand and still be compared. */
export const FIGURE_REACH = 40;

/** A number's digits, bounded so no pattern that starts with one can scan a long run of digits twice. */
const NUMBER = '(\\d[\\d,]{0,14})';
const re = (source: string) => new RegExp(source, 'i');

/** Shapes that give the figures at once, most specific first. */
const EXACT_SHAPES: readonly { pattern: RegExp; read: (m: RegExpExecArray) => OverflowTokens }[] = [
  // Anthropic: "prompt is too long: 208310 tokens > 200000 maximum"
  { pattern: re(`prompt is too long: ${NUMBER} tokens? > ${NUMBER}`), read: (m) => pair(m[1], m[2]) },
  // Anthropic: "exceed context limit: 199759 + 8192 > 200000"
  {
    pattern: re(`context limit: ${NUMBER} \\+ ${NUMBER} > ${NUMBER}`),
    read: (m) => figures(sum(m[1], m[2]), num(m[3]), num(m[2])),
  },
  // Gemini: "The input token count (1200293) exceeds the maximum number of tokens allowed (1048576)"
  {
    pattern: re(
      `input token count \\(?${NUMBER}\\)? exceeds the maximum number of tokens allowed \\(?${NUMBER}`,
    ),
    read: (m) => pair(m[1], m[2]),
  },
  // llama.cpp / Ollama: "request (8889 tokens) exceeds the available context size (4096 tokens)"
  {
    pattern: re(`request \\(${NUMBER} tokens?\\) exceeds the available context size \\(${NUMBER}`),
    read: (m) => pair(m[1], m[2]),
  },
  // xAI: "maximum prompt length is 131072 but the request contains 537812 tokens"
  {
    pattern: re(`maximum prompt length is ${NUMBER} but the request contains ${NUMBER}`),
    read: (m) => pair(m[2], m[1]),
  },
  // llama-cpp-python: "Requested tokens (2285) exceed context window of 2048"
  {
    pattern: re(`tokens \\(${NUMBER}\\) exceeds? context window of ${NUMBER}`),
    read: (m) => pair(m[1], m[2]),
  },
  // MLX servers (omlx): "Prompt too long: 51587 tokens exceeds max context window of 32768 tokens"
  {
    pattern: re(`${NUMBER} tokens? exceeds? (?:the )?(?:max(?:imum)? )?context window of ${NUMBER}`),
    read: (m) => pair(m[1], m[2]),
  },
  // TGI (Hugging Face, Together): "`inputs` tokens + `max_new_tokens` must be <= 4096. Given: 4000 `inputs`
  // tokens and 1000 `max_new_tokens`"
  {
    pattern: re(`must be <= ${NUMBER}\\. Given: ${NUMBER} .?inputs.? tokens and ${NUMBER}`),
    read: (m) => figures(sum(m[2], m[3]), num(m[1]), num(m[3])),
  },
  // TGI: "`inputs` must have less than 4096 tokens. Given: 5000"
  {
    pattern: re(`inputs.? must have less than ${NUMBER} tokens\\. Given: ${NUMBER}`),
    read: (m) => pair(m[2], m[1]),
  },
  // Cohere: "total number of tokens in the prompt cannot exceed 4081 - received 4292"
  { pattern: re(`cannot exceed ${NUMBER} - received ${NUMBER}`), read: (m) => pair(m[2], m[1]) },
  // Qwen / DashScope: "Range of input length should be [1, 30720]"
  {
    pattern: re(`range of input length should be \\[ ?1, ?${NUMBER}\\]`),
    read: (m) => figures(undefined, num(m[1]), undefined),
  },
  // vLLM (0.8+): "maximum context length is 4096 tokens. However, you requested 1000 output tokens and your
  // prompt contains at least 3500 input tokens"
  {
    pattern: re(
      `maximum context length is ${NUMBER} tokens\\. However, you requested ${NUMBER} output tokens and your prompt contains at least ${NUMBER} input tokens`,
    ),
    read: (m) => figures(sum(m[3], m[2]), num(m[1]), num(m[2])),
  },
];

/**
 * Reads the figures out of one error text; `{}` when it gives none. `words` is the text already tokenized,
 * when the caller has it.
 */
export function readOverflowFigures(text: string, words?: readonly Word[]): OverflowTokens {
  for (const { pattern, read } of EXACT_SHAPES) {
    const match = pattern.exec(text);
    if (match) return read(match);
  }
  const labelled = labelFigures(words ?? tokenizeErrorText(text));
  const request = bestFigure(labelled, 'request');
  const openAI = readOpenAIShape(text);
  if (openAI) return openAI.requested === undefined ? figures(request?.value, openAI.limit) : openAI;
  // Any "A tokens > B" left: xAI "(505759 tokens > 500000 tokens)".
  const comparison = re(`${NUMBER} (?:tokens? )?> ${NUMBER}`).exec(text);
  if (comparison) return pair(comparison[1], comparison[2]);
  const limit = bestFigure(labelled, 'limit', request);
  if (limit === undefined && !request?.named) return {};
  return figures(request?.value, limit?.value);
}

/**
 * The figure of a side that names what it is, else any; a limit is taken nearest the request's figure, so
 * a status code in the message ("openai-compatible 400 model_max_prompt_tokens_exceeded") is passed over.
 */
function bestFigure(labelled: readonly Figure[], side: Figure['side'], near?: Figure): Figure | undefined {
  const candidates = labelled.filter((figure) => figure.side === side);
  const named = candidates.filter((figure) => figure.named);
  const pool = named.length > 0 ? named : candidates;
  if (near === undefined) return pool[0];
  const distance = (figure: Figure) => Math.abs(figure.at - near.at);
  return pool.reduce<Figure | undefined>(
    (best, figure) => (best === undefined || distance(figure) < distance(best) ? figure : best),
    undefined,
  );
}

/**
 * Do the text's figures say the request exceeds the window: a request's figure above a limit's, within
 * FIGURE_REACH words, with at least one of the two named as the request ("the input token count is") or as
 * the window ("context size is")? "Limit 30000, Requested 50000" names neither and stays a rate limit's.
 */
export function figuresShowOverflow(words: readonly Word[]): boolean {
  const labelled = labelFigures(words);
  // Figures are in text order and at most FIGURE_REACH stand within reach of one: linear in the figures.
  let first = 0;
  for (const [index, request] of labelled.entries()) {
    if (request.side !== 'request') continue;
    while ((labelled[first] as Figure).at < request.at - FIGURE_REACH) first++;
    for (let i = first; i < labelled.length; i++) {
      const limit = labelled[i] as Figure;
      if (limit.at > request.at + FIGURE_REACH) break;
      if (i === index || limit.side !== 'limit') continue;
      if (request.value > limit.value && (request.named || limit.named)) return true;
    }
  }
  return false;
}

/**
 * OpenAI, DeepSeek, vLLM, OpenRouter, Groq, Fireworks, SGLang: "maximum context length is 4097 tokens.
 * However, you requested 4268 tokens (4012 in the messages, 256 in the completion)" / "your messages
 * resulted in 4294 tokens" / "you requested about 138956 tokens (7884 of text input, 131072 in the output)"
 * / "You requested a total of 270128 tokens: 261936 tokens from the input messages and 8192 tokens for the
 * completion" / vLLM: "your request has 8 input tokens plus 2045 'max_tokens'".
 */
function readOpenAIShape(text: string): OverflowTokens | undefined {
  const limit = num(re(`maximum context length (?:is |of )?${NUMBER}`).exec(text)?.[1]);
  if (limit === undefined) return undefined;
  const vllm = re(`request has ${NUMBER} input tokens?(?: plus ${NUMBER})?`).exec(text);
  if (vllm) return figures(sum(vllm[1], vllm[2]), limit, num(vllm[2]));
  const requested = num(
    re(`(?:requested|resulted in)(?: about| a total of)? ${NUMBER} tokens`).exec(text)?.[1],
  );
  const completion = num(re(`${NUMBER} (?:tokens )?(?:in|for) the (?:completion|output)`).exec(text)?.[1]);
  return figures(requested, limit, completion);
}

interface Figure {
  at: number;
  value: number;
  side: 'request' | 'limit';
  /** Its words name the request itself ("prompt", "input") or the window ("context length"). */
  named: boolean;
}

/** How many words before and after a figure say what it is. */
const LABEL_BEFORE = 5;
const LABEL_AFTER = 3;

/**
 * A figure in these units is not tokens: bytes (an image's or a body's size), characters, words,
 * messages or items. Never read as the window's tokens (a window adopted from it would be wrong).
 */
const NOT_TOKEN_UNITS: ReadonlySet<string> = new Set([
  'bytes',
  'byte',
  'kb',
  'mb',
  'gb',
  'tb',
  'kib',
  'mib',
  'gib',
  'characters',
  'character',
  'chars',
  'char',
  'words',
  'word',
  'messages',
  'message',
  'items',
  'item',
  'lines',
  'line',
  'turns',
  'images',
  'files',
]);

/** Words that end a figure's label: its label never runs past another figure or a comparison. */
const ENDS_LABEL = new Set([
  'number',
  'stop',
  'comma',
  'break',
  'exceeds',
  'too',
  'too-many',
  'shrink',
  'bound',
]);

function labelFigures(words: readonly Word[]): Figure[] {
  const labelled: Figure[] = [];
  words.forEach((word, at) => {
    if (word.cls !== 'number' || word.value === undefined) return;
    if (NOT_TOKEN_UNITS.has((words[at + 1] as Word | undefined)?.text ?? '')) return;
    const before = labelOf(words, at, -1, LABEL_BEFORE);
    const after = labelOf(words, at, 1, LABEL_AFTER);
    if (before.has('output') || before.has('other') || after.has('output') || after.has('other')) return;
    const bounds = (label: Set<string>) => label.has('limit') || label.has('window');
    // "9000 tokens requested" is the request's, whatever came before it.
    if ((bounds(before) || bounds(after)) && !after.has('asks')) {
      const named = before.has('window') || after.has('window') || before.has('context');
      labelled.push({ at, value: word.value, side: 'limit', named });
    } else if (before.has('subject') || before.has('context') || before.has('asks') || after.has('asks')) {
      // "the request contains 9000", "requested: 9000", "9000 tokens requested"
      labelled.push({
        at,
        value: word.value,
        side: 'request',
        named: namesRequest(before) || namesRequest(after),
      });
    }
  });
  return labelled;
}

const namesRequest = (label: Set<string>) => label.has('subject') || label.has('context');

function labelOf(words: readonly Word[], at: number, step: 1 | -1, reach: number): Set<string> {
  const label = new Set<string>();
  for (let i = at + step, seen = 0; i >= 0 && i < words.length && seen < reach; i += step, seen++) {
    const word = words[i] as Word;
    // A bracket after a figure opens the next one's label: "limit: 262144 (requested: 291351)".
    if (ENDS_LABEL.has(word.cls) || (step === 1 && word.text === '(')) break;
    label.add(word.cls);
  }
  return label;
}

function pair(requested: string | undefined, limit: string | undefined): OverflowTokens {
  return figures(num(requested), num(limit), undefined);
}

function figures(requested?: number, limit?: number, completion?: number): OverflowTokens {
  return {
    ...(requested !== undefined && { requested }),
    ...(limit !== undefined && { limit }),
    ...(completion !== undefined && { completion }),
  };
}

function sum(a: string | undefined, b: string | undefined): number | undefined {
  const first = num(a);
  return first === undefined ? undefined : first + (num(b) ?? 0);
}

function num(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text.replaceAll(',', ''));
  return Number.isFinite(value) ? value : undefined;
}
