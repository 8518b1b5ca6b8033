/**
 * Regenerates the common-word list of `src/core/tokens/common-words.ts`: the words that appear in the most
 * independent sources of technical text (package docs and type declarations, a language's standard
 * library, system documentation). Never the evaluation corpus (fixtures/corpus): the list must describe
 * text in general, not the sessions the accuracy benchmark measures.
 *
 * A word counts once per source group (an npm package, a top-level stdlib module, a documentation package),
 * so one large package cannot fill the list with its own vocabulary (model names of a tokenizer library,
 * codec names of an encodings package). Words are letter runs as the o200k pre-tokenizer cuts them,
 * lowercase or Capitalized, folded to lowercase.
 *
 * The sources are whatever is installed, so the list is data, not a build step: it was generated once
 * (this repository's node_modules as installed then, and Python 3.11's standard library) and is committed.
 * A run on another install differs at the margin; a list regenerated after new packages had been
 * installed moved the accuracy benchmark's o200k median after 2 anchors from 1.5% to 1.7%.
 *
 *   npx tsx bench/token-word-list.ts [count] [dir…]   (defaults: 2000 words from node_modules and
 *                                                     the Python standard library, /usr/lib/python3.*)
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

const DEFAULT_DIRS = ['node_modules', ...pythonStdlib()];
const TEXT_FILE = /(\.md|\.d\.ts|\.py)$/;
const MAX_FILE_CHARS = 200_000;
const LETTER_RUN = /\p{Lu}*\p{Ll}+|\p{Lu}+\p{Ll}*/gu;
const WORD = /^(?:[a-z]+|[A-Z][a-z]+)$/;

function pythonStdlib(): string[] {
  try {
    return readdirSync('/usr/lib')
      .filter((entry) => /^python3\.\d+$/.test(entry))
      .sort()
      .slice(-1)
      .map((entry) => join('/usr/lib', entry));
  } catch {
    return [];
  }
}

function* textFiles(dir: string): Generator<string> {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  for (const entry of entries.sort()) {
    const path = join(dir, entry);
    let stat: ReturnType<typeof statSync>;
    try {
      stat = statSync(path);
    } catch {
      continue;
    }
    if (stat.isDirectory()) yield* textFiles(path);
    else if (TEXT_FILE.test(entry) && !/\.zh[-.]/.test(entry)) yield path;
  }
}

/** The source a file belongs to: an npm package (scoped or not), else the first folder under the root. */
function groupOf(root: string, file: string): string {
  const parts = relative(root, file).split(sep);
  const inPackages = parts.lastIndexOf('node_modules');
  if (inPackages >= 0 || root.endsWith('node_modules')) {
    const at = inPackages + 1;
    const name = parts[at] ?? '';
    return `${root}:${name.startsWith('@') ? `${name}/${parts[at + 1] ?? ''}` : name}`;
  }
  return `${root}:${parts.length > 1 ? parts[0] : '.'}`;
}

function main(): void {
  const count = Number(process.argv[2] ?? 2_000);
  const dirs = process.argv.length > 3 ? process.argv.slice(3) : DEFAULT_DIRS;
  const wordsByGroup = new Map<string, Set<string>>();
  for (const root of dirs) {
    for (const file of textFiles(root)) {
      let text: string;
      try {
        text = readFileSync(file, 'utf8').slice(0, MAX_FILE_CHARS);
      } catch {
        continue;
      }
      const group = groupOf(root, file);
      let words = wordsByGroup.get(group);
      if (!words) {
        words = new Set();
        wordsByGroup.set(group, words);
      }
      for (const [word] of text.matchAll(LETTER_RUN)) if (WORD.test(word)) words.add(word.toLowerCase());
    }
  }
  const groups = new Map<string, number>();
  for (const words of wordsByGroup.values())
    for (const word of words) groups.set(word, (groups.get(word) ?? 0) + 1);
  const ranked = [...groups]
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
    .slice(0, count)
    .map(([word]) => word)
    .sort();
  process.stderr.write(`${wordsByGroup.size} source groups, ${groups.size} distinct words\n`);
  let line = '';
  for (const word of ranked) {
    if (line.length + word.length + 1 > 100) {
      console.log(line);
      line = '';
    }
    line = line ? `${line} ${word}` : word;
  }
  if (line) console.log(line);
}

main();
