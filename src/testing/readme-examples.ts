import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The repository's README, whose marked examples are run by tests exactly as printed. */
export const README_PATH = fileURLToPath(new URL('../../README.md', import.meta.url));

/**
 * The README's example called `name`: the ```js block directly under its `<!-- example: name -->` line.
 * Found by marker, not by heading, so the prose around an example can be rewritten freely; a marker that is
 * missing, repeated or not followed by a js block throws, naming it.
 */
export function readmeExample(name: string, readme = readFileSync(README_PATH, 'utf8')): string {
  const marker = `<!-- example: ${name} -->`;
  const blocks = [...readme.matchAll(/^<!-- example: (.+?) -->\n```(\w*)\n([\s\S]*?)\n```$/gm)];
  const found = blocks.filter((block) => block[1] === name);
  if (readme.split(marker).length - 1 !== 1) throw new Error(`README.md: expected one "${marker}" line`);
  const [block] = found;
  if (block?.[2] !== 'js') throw new Error(`README.md: "${marker}" must sit right above a \`\`\`js block`);
  return block[3] ?? '';
}

/** What an example says it prints: the `// ` comment ending each `console.log(…);` line, in order. */
export function promisedOutput(code: string): string[] {
  return [...code.matchAll(/^console\.log\(.*\); \/\/ (.*)$/gm)].map((match) => match[1] ?? '');
}
