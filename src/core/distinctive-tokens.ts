/**
 * The distinctive tokens of a text: what an agent quotes back from tool output it read and could not
 * have guessed. Paths and file names, hex hashes of 7+ characters (with a digit and a letter),
 * identifiers of 6+ characters with an underscore or an inner capital, and `file:line` references.
 * The working-set measure (replay/working-set.ts) counts them; pointers keep some (`pointerKeys`).
 */

const PATH = /(?:[\w.-]+\/)+[\w.-]+|\b[\w-]+\.[a-zA-Z][a-zA-Z0-9]{0,5}\b/g;
const HASH = /\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b/g;
const IDENTIFIER = /\b[A-Za-z_][A-Za-z0-9_]{5,}\b/g;
const LINE_REF = /[\w./-]+\.[a-zA-Z]\w{0,5}:\d+/g;
/** Longer tokens are left out: a quoted blob is not one identifier. */
const MAX_TOKEN_CHARS = 200;
/**
 * Tokens never span these. The text is cut at them first and the patterns run on each piece, so the
 * cost stays linear in the text whatever it holds (a pattern run over one long line retried from every
 * position would not).
 */
const SEPARATORS = /[\s"'`()[\]{}<>,;=|]+/;

const isDistinctiveIdentifier = (word: string): boolean =>
  (word.includes('_') && /[A-Za-z]/.test(word.replace(/_/g, ''))) || /[a-z][A-Z]/.test(word);

/** The distinctive tokens of a text, each once: paths, then hashes, identifiers, `file:line` references. */
export function distinctiveTokens(text: string): Set<string> {
  const byKind: string[][] = [[], [], [], []];
  const add = (kind: number, token: string) => {
    const trimmed = token.replace(/^[./-]+|[.,;:)\]}'"`-]+$/g, '');
    if (trimmed.length >= 4 && trimmed.length <= MAX_TOKEN_CHARS) byKind[kind]?.push(trimmed);
  };
  for (const piece of text.split(SEPARATORS)) {
    if (piece.length < 4 || piece.length > MAX_TOKEN_CHARS + 8) continue;
    for (const match of piece.matchAll(PATH)) if (/[A-Za-z]/.test(match[0])) add(0, match[0]);
    for (const match of piece.matchAll(HASH)) add(1, match[0]);
    for (const match of piece.matchAll(IDENTIFIER)) if (isDistinctiveIdentifier(match[0])) add(2, match[0]);
    for (const match of piece.matchAll(LINE_REF)) add(3, match[0]);
  }
  return new Set(byKind.flat());
}

/** Words that say a line reports a failure. */
const ERROR_LINE = /\b(error|exception|traceback|failed|failure|fatal|panic)\b/i;

/**
 * What a pointer keeps of the content it stands for, within `maxChars`: the first line that reports an
 * error, then `file:line` references, paths, hashes and identifiers in order of appearance, each once
 * (a path's tail is not repeated after the path). Brackets are shown as parentheses, so the pointer's
 * own bracket stays its end. Empty when nothing distinctive is there or `maxChars` is 0.
 */
export function pointerKeys(content: string, maxChars: number): string {
  if (maxChars <= 0) return '';
  const keys: string[] = [];
  let used = 0;
  const take = (key: string): boolean => {
    const cost = key.length + (keys.length > 0 ? 2 : 0);
    if (used + cost > maxChars) return false;
    keys.push(key);
    used += cost;
    return true;
  };
  const errorLine = content
    .split('\n', 2_000)
    .find((line) => ERROR_LINE.test(line))
    ?.trim()
    .replace(/\[/g, '(')
    .replace(/\]/g, ')');
  if (errorLine) take(errorLine.length > 120 ? `${errorLine.slice(0, 119)}…` : errorLine);
  const tokens = [...distinctiveTokens(content)];
  const refs = tokens.filter((token) => /:\d+$/.test(token));
  const rest = tokens.filter((token) => !/:\d+$/.test(token));
  for (const token of [...refs, ...rest]) {
    if (keys.some((key) => key.includes(token))) continue;
    if (!take(token) && used >= maxChars - 4) break;
  }
  return keys.join(', ');
}
