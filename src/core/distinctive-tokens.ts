import {
  HOLDS_COLON_DIGIT,
  HOLDS_DIGIT,
  HOLDS_DOT_OR_SLASH,
  HOLDS_LETTER,
  scanTokenPieces,
} from './token-pieces.ts';
import { safeCutIndex } from './utf16-boundary.ts';

/**
 * The distinctive tokens of a text: what an agent quotes back from tool output it read and could not
 * have guessed. Paths and file names, hex hashes of 7+ characters (with a digit and a letter),
 * identifiers of 6+ characters with an underscore or an inner capital, codes of 5+ letters and digits
 * mixed (a reservation `NM1VX1`, a flight `HAT300`), and `file:line` references.
 * The working-set measure (replay/working-set.ts) counts them; pointers keep some (`pointerKeys`).
 */

const PATH = /(?:[\w.-]+\/)+[\w.-]+|\b[\w-]+\.[a-zA-Z][a-zA-Z0-9]{0,5}\b/g;
const HASH = /\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b/g;
const IDENTIFIER = /\b[A-Za-z_][A-Za-z0-9_]{5,}\b/g;
const CODE = /\b(?=[A-Za-z0-9]*\d)(?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{5,}\b/g;
const LINE_REF = /[\w./-]+\.[a-zA-Z]\w{0,5}:\d+/g;
/** Longer tokens are left out: a quoted blob is not one identifier. */
const MAX_TOKEN_CHARS = 200;
/** The longest piece looked in: a token with a little punctuation around it, trimmed after. */
const MAX_PIECE_CHARS = MAX_TOKEN_CHARS + 8;
const isDistinctiveIdentifier = (word: string): boolean =>
  (word.includes('_') && /[A-Za-z]/.test(word.replace(/_/g, ''))) || /[a-z][A-Z]/.test(word);

/** The distinctive tokens of a text, each once: paths, then hashes, identifiers, codes, `file:line` references. */
export function distinctiveTokens(text: string): Set<string> {
  const byKind: string[][] = [[], [], [], [], []];
  const add = (kind: number, token: string) => {
    const trimmed = trimToken(token);
    if (trimmed !== undefined) byKind[kind]?.push(trimmed);
  };
  for (const piece of scanTokenPieces(text, MAX_PIECE_CHARS).pieces) {
    for (const match of piece.matchAll(PATH)) if (/[A-Za-z]/.test(match[0])) add(0, match[0]);
    for (const match of piece.matchAll(HASH)) add(1, match[0]);
    for (const match of piece.matchAll(IDENTIFIER)) if (isDistinctiveIdentifier(match[0])) add(2, match[0]);
    for (const match of piece.matchAll(CODE)) add(3, match[0]);
    for (const match of piece.matchAll(LINE_REF)) add(4, match[0]);
  }
  return new Set(byKind.flat());
}

/** A match without the punctuation around it, if what is left is a token's length. */
function trimToken(match: string): string | undefined {
  const trimmed = match.replace(/^[./-]+|[.,;:)\]}'"`-]+$/g, '');
  return trimmed.length >= 4 && trimmed.length <= MAX_TOKEN_CHARS ? trimmed : undefined;
}

/** Words that say a line reports a failure. */
const ERROR_LINE = /\b(error|exception|traceback|failed|failure|fatal|panic)\b/i;

/** Lines of a result looked through for one that reports a failure. */
const ERROR_LINE_SEARCH_LINES = 2_000;

/**
 * The first of the first `ERROR_LINE_SEARCH_LINES` lines that reports a failure: one search over them
 * rather than one per line (a match never spans a line, and `\b` reads a newline as a line's edge).
 */
function firstErrorLine(content: string): string | undefined {
  let end = -1;
  for (let line = 0; line < ERROR_LINE_SEARCH_LINES; line++) {
    end = content.indexOf('\n', end + 1);
    if (end < 0) break;
  }
  const head = end < 0 ? content : content.slice(0, end);
  const match = ERROR_LINE.exec(head);
  if (!match) return undefined;
  const to = head.indexOf('\n', match.index);
  return head.slice(head.lastIndexOf('\n', match.index) + 1, to < 0 ? head.length : to);
}

/** C0 and C1 controls and DEL: never copied into a pointer (an escape sequence could reach a terminal). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]+/g;

/** At most `max` code units, never ending inside a surrogate pair. */
const clipText = (text: string, max: number): string => text.slice(0, safeCutIndex(text, max));

/** A key and the shorter forms an agent quotes of it: a path's tails, a reference's path. */
function formsOf(key: string): string[] {
  const forms = [key];
  const path = key.replace(/:\d+$/, '');
  if (path !== key) forms.push(path);
  for (let slash = path.indexOf('/'); slash >= 0; slash = path.indexOf('/', slash + 1))
    forms.push(path.slice(slash + 1));
  return forms;
}

/**
 * What a pointer keeps of the content it stands for, within `maxChars`: the first line that reports an
 * error, then `file:line` references, paths, hashes, identifiers and codes in order of appearance, each
 * once (a path is not repeated after its reference, nor a token the error line holds). Brackets are shown
 * as parentheses, so the pointer's own bracket stays its end; control characters become spaces. Empty
 * when nothing distinctive is there or `maxChars` is 0. Linear in the content.
 */
export function pointerKeys(content: string, maxChars: number): string {
  if (maxChars <= 0) return '';
  const keys: string[] = [];
  const taken = new Set<string>();
  let used = 0;
  const take = (key: string): boolean => {
    const cost = key.length + (keys.length > 0 ? 2 : 0);
    if (used + cost > maxChars) return false;
    keys.push(key);
    used += cost;
    for (const form of formsOf(key)) taken.add(form);
    return true;
  };
  const errorLine = firstErrorLine(content)
    ?.replace(CONTROLS, ' ')
    .trim()
    .replace(/\[/g, '(')
    .replace(/\]/g, ')');
  if (errorLine) {
    const clipped = errorLine.length > 120 ? `${clipText(errorLine, 119)}…` : errorLine;
    if (take(clipped))
      for (const token of distinctiveTokens(clipped)) for (const form of formsOf(token)) taken.add(form);
  }
  for (const token of keyCandidates(content)) {
    if (taken.has(token)) continue;
    if (!take(token) && used >= maxChars - 4) break;
  }
  return keys.join(', ');
}

/**
 * `distinctiveTokens(content)` in the order pointer keys are taken, `file:line` references first, found
 * one pattern at a time as they are asked for: once the keys are full, the patterns not reached yet are
 * never run over a large result.
 */
function* keyCandidates(content: string): Generator<string> {
  const { pieces, holds } = scanTokenPieces(content, MAX_PIECE_CHARS);
  const seen = new Set<string>();
  for (const [pattern, needs, accept] of KEY_KINDS) {
    for (let index = 0; index < pieces.length; index++) {
      if (((holds[index] as number) & needs) === 0) continue;
      const piece = pieces[index] as string;
      // One shared global pattern, restarted per piece: `matchAll` would copy the pattern every time.
      pattern.lastIndex = 0;
      for (let match = pattern.exec(piece); match !== null; match = pattern.exec(piece)) {
        if (match[0].length === 0) pattern.lastIndex++;
        if (!accept(match[0])) continue;
        const token = trimToken(match[0]);
        if (token === undefined || seen.has(token)) continue;
        seen.add(token);
        yield token;
      }
    }
  }
}

/**
 * Each kind of key: its pattern (global), what a piece must hold to hold one (a character every match
 * has: `HOLDS_` flags), and what a match must be besides. In the order keys are taken.
 */
const KEY_KINDS: readonly [RegExp, number, (match: string) => boolean][] = [
  [new RegExp(LINE_REF.source, 'g'), HOLDS_COLON_DIGIT, () => true],
  [new RegExp(PATH.source, 'g'), HOLDS_DOT_OR_SLASH, (match) => /[A-Za-z]/.test(match)],
  [new RegExp(HASH.source, 'g'), HOLDS_DIGIT, () => true],
  [new RegExp(IDENTIFIER.source, 'g'), HOLDS_LETTER, isDistinctiveIdentifier],
  [new RegExp(CODE.source, 'g'), HOLDS_DIGIT, () => true],
];
