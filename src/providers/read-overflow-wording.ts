/**
 * Reads whether an error text says "the request does not fit the model's window", by the sentence it makes
 * rather than by the provider that wrote it. The words are sorted by overflow-vocabulary.ts; an overflow
 * is said when, within one sentence:
 * - the request's size exceeds a bound: a subject that is the request (prompt, input, messages, request,
 *   its tokens, the context) before a word of excess (exceeds, is longer/larger/greater than, over, >,
 *   reached, does not fit), and after it the model's window or a limit ("the request exceeds the available
 *   context size", "prompt token count of 9000 exceeds the limit of 8192", "context length exceeded");
 *   with no subject, naming the window is enough ("exceed_context_size", "ran out of room in the context
 *   window");
 * - the request is too long or too large, or there are too many of its tokens ("prompt is too long",
 *   "Input is too long for requested model", "too many input tokens", "the context overflows");
 * - a rule on the request's size is broken ("`inputs` must have less than 4096 tokens", "Range of input
 *   length should be [1, 30720]");
 * - the fix asked for is a smaller request ("Please reduce the length of the messages", "use a shorter
 *   prompt");
 * - the window is named ("maximum context length", "context window", "token limit") in a sentence about
 *   nothing else;
 * - its figures put the request above the limit ("maximum prompt length is 131072 but the request contains
 *   537812 tokens").
 * A subject or bound that is the output (max_tokens, completion) or something else (an image, a file, the
 * rate, memory, a budget, a deadline) is not the request: "max_tokens is too large", "image exceeds 5 MB
 * maximum" and "context deadline exceeded" say nothing about the window. A phrase's head is its last noun
 * ("request rate" is a rate), and a noun after "in"/"for" completes it ("the number of tools in the request"
 * counts tools). Each word is looked at a bounded number of times: linear in the text.
 */
import { CJK_OVERFLOW, WINDOW_NAMES, type WordClass } from './overflow-vocabulary.ts';
import { figuresShowOverflow } from './read-overflow-figures.ts';
import { tokenizeErrorText, type Word } from './tokenize-error-text.ts';

export interface WordingVerdict {
  /** The text says the request does not fit the model's window. */
  overflow: boolean;
  /** The text says something else is too large (an image, a file, a header, max_tokens). */
  otherExcess: boolean;
}

/** How many words on either side of a word of excess are read for its subject and its bound. */
export const PHRASE_REACH = 8;

/** Unknown words read past before a subject is found: "Your input text is too long" skips "text". */
const UNKNOWN_BEFORE_SUBJECT = 1;

/** Words of excess that need no bound after them: "context length exceeded", "the prompt exceeds". */
const EXCESS_ALONE = /^(?:exceed|surpass|reach|out of|no room|not fit|cannot fit)/;

const NOUNS: ReadonlySet<WordClass> = new Set(['subject', 'context', 'window', 'output', 'other']);
const IS_REQUEST: ReadonlySet<WordClass> = new Set(['subject', 'context', 'window']);
/** Words that end the phrase on either side of a word of excess. */
const ENDS_PHRASE: ReadonlySet<WordClass> = new Set([
  'stop',
  'break',
  'exceeds',
  'too',
  'too-many',
  'bound',
  'shrink',
]);

export function readOverflowWording(text: string, words = tokenizeErrorText(text)): WordingVerdict {
  const verdict: WordingVerdict = { overflow: false, otherExcess: false };
  const sentences = sentenceTopics(words);
  for (let at = 0; at < words.length && !verdict.overflow; at++) {
    const word = words[at] as Word;
    switch (word.cls) {
      case 'exceeds':
        readExcess(words, at, verdict);
        break;
      case 'too':
        readTooLarge(words, at, verdict);
        break;
      case 'too-many':
        readTooMany(words, at, sentences[at] as Topics, verdict);
        break;
      case 'bound':
        readBrokenRule(words, at, verdict);
        break;
      case 'shrink':
        if (asksForSmallerRequest(words, at)) verdict.overflow = true;
        break;
      case 'window': {
        const topics = sentences[at] as Topics;
        if (WINDOW_NAMES.has(word.text) && !topics.output && !topics.other) verdict.overflow = true;
        break;
      }
    }
  }
  if (!verdict.overflow) verdict.overflow = figuresShowOverflow(words) || saysOverflowInChinese(text);
  return verdict;
}

/** "The request exceeds the available context size", "context length exceeded", "tokens > maximum". */
function readExcess(words: readonly Word[], at: number, verdict: WordingVerdict): void {
  const subject = readSubject(words, at);
  const bound = readBound(words, at + 1);
  if (subject.side === 'else' || bound.side === 'else') {
    if (subject.side === 'else') verdict.otherExcess = true;
    return;
  }
  if (bound.side === 'window') verdict.overflow = true;
  else if (subject.side === 'request') {
    const alone = EXCESS_ALONE.test((words[at] as Word).text);
    if (bound.side === 'limit' || alone) verdict.overflow = true;
  }
}

/** "Prompt is too long", "Input is too long for requested model", "the context overflows". */
function readTooLarge(words: readonly Word[], at: number, verdict: WordingVerdict): void {
  const subject = readSubject(words, at);
  if (subject.side === 'request') verdict.overflow = true;
  else if (subject.side === 'else') verdict.otherExcess = true;
}

/** "Too many input tokens"; not "too many requests", nor Cohere's "too many tokens: max tokens must be…". */
function readTooMany(words: readonly Word[], at: number, topics: Topics, verdict: WordingVerdict): void {
  for (let i = at + 1; i < Math.min(words.length, at + 1 + PHRASE_REACH); i++) {
    const word = words[i] as Word;
    if (IS_REQUEST.has(word.cls)) {
      const bareTokens = word.text === 'tokens' || word.text === 'token';
      if (!bareTokens || topics.request || !topics.output) verdict.overflow = true;
      return;
    }
    if (word.cls === 'output' || word.cls === 'other') {
      verdict.otherExcess = true;
      return;
    }
    if (word.cls !== 'filler' && word.cls !== 'measure' && word.cls !== 'word') return;
  }
}

/**
 * After must/should, a bound the request breaks: "`inputs` must have less than 4096 tokens", "Range of input
 * length should be [1, 30720]". The rule has to be about the request's size, in tokens or by its length:
 * a validator's "Input should be less than or equal to 2" is about a parameter.
 */
function readBrokenRule(words: readonly Word[], at: number, verdict: WordingVerdict): void {
  let modal = -1;
  for (let i = at - 1; i >= Math.max(0, at - 4); i--) {
    const cls = (words[i] as Word).cls;
    if (cls === 'modal') {
      modal = i;
      break;
    }
    if (cls !== 'filler' && cls !== 'asks' && cls !== 'and') return;
  }
  if (modal < 0) return;
  const subject = readSubject(words, modal);
  if (subject.side === 'else') verdict.otherExcess = true;
  if (subject.side !== 'request') return;
  const bound = readBound(words, at + 1);
  if (bound.side === 'else') return;
  if (subject.measured || bound.inTokens || bound.side === 'window') verdict.overflow = true;
}

/** "Please reduce the length of the messages", "use a shorter prompt", "decrease input length or max_tokens". */
function asksForSmallerRequest(words: readonly Word[], at: number): boolean {
  let head: WordClass | undefined;
  for (let i = at + 1; i < Math.min(words.length, at + 1 + PHRASE_REACH); i++) {
    const word = words[i] as Word;
    if (NOUNS.has(word.cls)) head = word.cls;
    else if (word.cls === 'and' || word.cls === 'preposition' || word.cls === 'comma') {
      if (head === 'subject' || head === 'context') return true;
      if (word.cls !== 'and') return false;
      head = undefined;
    } else if (ENDS_PHRASE.has(word.cls) && word.cls !== 'shrink') break;
  }
  return head === 'subject' || head === 'context';
}

interface SubjectReading {
  /** The request's size, something else's, or no subject at all. */
  side: 'request' | 'else' | 'none';
  /** The subject is measured: its length, size, count, or its tokens. */
  measured: boolean;
}

/**
 * The subject of the word at `at`, read leftwards. The nearest noun is the head of its phrase ("input token
 * count" is tokens), the nouns before it only modify it; after "in"/"for"/"from" the head so far completed
 * an earlier noun, which becomes the head ("the number of tools in the request" is tools). "And" adds a
 * subject: "input length and `max_tokens` exceed" is about the input too.
 */
function readSubject(words: readonly Word[], at: number): SubjectReading {
  let heads: WordClass[] = [];
  let completes = false;
  let joined = false;
  let measured = false;
  let unknown = 0;
  let commas = 0;
  let wordsSeen = false;
  // Nouns right before the head modify it; the output's or another thing's make it theirs: "output token
  // limit exceeded" is about the output, "plan token limit" about the plan.
  let compound = false;
  let modifiedAway = false;
  for (let i = at - 1; i >= Math.max(0, at - PHRASE_REACH); i--) {
    const word = words[i] as Word;
    if (ENDS_PHRASE.has(word.cls)) break;
    // "max_tokens: 10000 > 4096" is about max_tokens; "invalid request: number of texts must be" is not
    // about the request: a colon is crossed only when nothing but figures stood after it.
    if (word.cls === 'colon' && wordsSeen) break;
    if (NOUNS.has(word.cls) || word.cls === 'measure' || word.cls === 'word') wordsSeen = true;
    if (NOUNS.has(word.cls)) {
      if (word.text === 'tokens' || word.text === 'token') measured = true;
      if (heads.length === 0 || completes || joined) {
        heads = completes ? [word.cls] : [...heads, word.cls];
        modifiedAway &&= !completes;
      } else if (compound && (word.cls === 'output' || word.cls === 'other')) modifiedAway = true;
      compound = true;
      completes = false;
      joined = false;
      continue;
    }
    if (word.cls !== 'measure' && word.cls !== 'limit' && word.cls !== 'word') compound = false;
    if (word.cls === 'measure') measured = true;
    else if (word.cls === 'preposition' && heads.length > 0) completes = true;
    else if (word.cls === 'and' && heads.length > 0) joined = true;
    else if (word.cls === 'comma' && ++commas > 1) break;
    else if (word.cls === 'word' && heads.length === 0 && ++unknown > UNKNOWN_BEFORE_SUBJECT) break;
  }
  const request = heads.some((cls) => IS_REQUEST.has(cls)) && !modifiedAway;
  const side = request ? 'request' : heads.length > 0 ? 'else' : 'none';
  return { side, measured };
}

interface BoundReading {
  /** The model's window by name, another bound or a figure, something that is not the request's, or nothing. */
  side: 'window' | 'limit' | 'else' | 'none';
  /** The bound is counted in tokens: "less than 4096 tokens". */
  inTokens: boolean;
}

/** What the request is held against, read rightwards to the end of the phrase. */
function readBound(words: readonly Word[], from: number): BoundReading {
  const seen = new Set<WordClass>();
  let inTokens = false;
  for (let i = from; i < Math.min(words.length, from + PHRASE_REACH); i++) {
    const word = words[i] as Word;
    if (ENDS_PHRASE.has(word.cls) || word.cls === 'comma' || word.cls === 'colon') break;
    seen.add(word.cls);
    if (word.text === 'tokens' || word.text === 'token') inTokens = true;
  }
  if (seen.has('output') || seen.has('other')) return { side: 'else', inTokens };
  if (seen.has('window') || seen.has('context')) return { side: 'window', inTokens };
  const limits = seen.has('limit') || seen.has('subject') || seen.has('number');
  return { side: limits ? 'limit' : 'none', inTokens };
}

interface Topics {
  /** The sentence speaks of the output (max_tokens, completion). */
  output: boolean;
  /** The sentence speaks of something that is neither the request nor the output. */
  other: boolean;
  /** The sentence names the request by more than a bare "tokens". */
  request: boolean;
}

/** What each word's sentence speaks of, one entry per word. */
function sentenceTopics(words: readonly Word[]): Topics[] {
  const topics: Topics[] = new Array(words.length);
  let start = 0;
  for (let end = 0; end <= words.length; end++) {
    if (end < words.length && (words[end] as Word).cls !== 'stop') continue;
    const sentence: Topics = { output: false, other: false, request: false };
    for (let i = start; i < end; i++) {
      const word = words[i] as Word;
      if (word.cls === 'output') sentence.output = true;
      else if (word.cls === 'other') sentence.other = true;
      else if (word.cls === 'context' || (word.cls === 'subject' && !/^tokens?$/.test(word.text)))
        sentence.request = true;
    }
    for (let i = start; i <= end && i < words.length; i++) topics[i] = sentence;
    start = end + 1;
  }
  return topics;
}

/** DashScope, Zhipu, Moonshot in Chinese: "输入长度超过模型上限" (the input's length exceeds the model's limit). */
function saysOverflowInChinese(text: string): boolean {
  const match = CJK_OVERFLOW.exec(text);
  return match !== null && !/max|输出|output|图片|图像|文件/i.test(match[0]);
}
