/** A benchmark's `--name value` pairs (every flag takes a value), by name without the dashes. */
export function parseFlags(argv: readonly string[]): Map<string, string> {
  const flags = new Map<string, string>();
  for (let index = 0; index < argv.length; index++) {
    const key = argv[index];
    if (!key?.startsWith('--')) continue;
    flags.set(key.slice(2), argv[index + 1] ?? '');
    index++;
  }
  return flags;
}
