import { OVERFLOW_VOCABULARY, type WordClass } from './overflow-vocabulary.ts';

/** One word (or phrase) of an error message, with the part it plays. */
export interface Word {
  cls: WordClass;
  /** The word or phrase as read: lower case, codes split into words. */
  text: string;
  /** A number's value (`1,048,576` → 1048576, `128k` → 128000). */
  value?: number;
}

/**
 * Numbers (with thousands commas, decimals and a `k` suffix), words, comparison signs, and the
 * punctuation that ends a sentence or a phrase. A `.` ends a sentence only before a space, and digits
 * glued to a word or a dot are part of a name, not a figure (`messages.46.content`, `gpt4`, `req_011C`).
 * Every alternative moves forward: linear in the text.
 */
const PIECE =
  /(?<![.\w])\d+(?:,\d{3})*(?:\.\d+)?(?:k(?![a-z]))?|[a-z]+|<=|>=|\.(?=\s|$)|[<>+[\]():;,!?=\n。！？]/g;

/** For each word that starts a phrase of several words, the longest such phrase, in words. */
const PHRASE_LENGTHS: ReadonlyMap<string, number> = (() => {
  const lengths = new Map<string, number>();
  for (const phrase of OVERFLOW_VOCABULARY.keys()) {
    const words = phrase.split(' ');
    const first = words[0] as string;
    if (words.length > 1) lengths.set(first, Math.max(lengths.get(first) ?? 1, words.length));
  }
  return lengths;
})();

const PUNCTUATION: Readonly<Record<string, WordClass>> = {
  '.': 'stop',
  '!': 'stop',
  '?': 'stop',
  '\n': 'stop',
  '。': 'stop',
  '！': 'stop',
  '？': 'stop',
  ',': 'comma',
  ';': 'comma',
  ':': 'colon',
};

/**
 * The words of an error text, each phrase of the vocabulary read as one word. `ContextWindowExceededError`,
 * `context_window_exceeded` and `context-window exceeded` all read "context window" + "exceeded".
 */
export function tokenizeErrorText(text: string): Word[] {
  const pieces = splitPieces(text);
  const words: Word[] = [];
  for (let i = 0; i < pieces.length; ) {
    const piece = pieces[i] as string;
    const punctuation = PUNCTUATION[piece];
    if (punctuation) {
      words.push({ cls: punctuation, text: piece });
      i += 1;
      continue;
    }
    if (/^\d/.test(piece)) {
      words.push({ cls: 'number', text: piece, value: numberValue(piece) });
      i += 1;
      continue;
    }
    const [phrase, length] = longestPhrase(pieces, i);
    words.push(phrase);
    i += length;
  }
  return words;
}

function splitPieces(text: string): string[] {
  const plain = text
    .replace(/<\/?[a-zA-Z!][^<>]{0,200}>/g, ' ') // an HTML error page's tags
    .replace(/["'][A-Za-z_$]{1,40}["']\s{0,8}:/g, ', ') // a relayed body's keys ("message":) are not its words
    .replace(/(?<=[a-z])(?=[A-Z])/g, ' ') // contextWindow → context Window
    .replace(/(?<=[A-Z])(?=[A-Z][a-z])/g, ' ') // HTTPError → HTTP Error
    .toLowerCase()
    .replace(/n['’]t\b/g, ' not') // doesn't → does not
    .replace(/['’]s\b/g, '') // model's → model
    .replaceAll('≤', '<=')
    .replaceAll('≥', '>=');
  return plain.match(PIECE) ?? [];
}

function longestPhrase(pieces: readonly string[], at: number): [Word, number] {
  const first = pieces[at] as string;
  const longest = Math.min(PHRASE_LENGTHS.get(first) ?? 1, pieces.length - at);
  for (let length = longest; length > 1; length--) {
    const phrase = pieces.slice(at, at + length).join(' ');
    const cls = OVERFLOW_VOCABULARY.get(phrase);
    if (cls) return [{ cls, text: phrase }, length];
  }
  return [{ cls: OVERFLOW_VOCABULARY.get(first) ?? 'word', text: first }, 1];
}

function numberValue(piece: string): number {
  const thousands = piece.endsWith('k');
  const value = Number((thousands ? piece.slice(0, -1) : piece).replaceAll(',', ''));
  return thousands ? value * 1000 : value;
}
