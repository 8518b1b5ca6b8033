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

/** The windows the benches replay at when `--windows` does not say. */
export const DEFAULT_BENCH_WINDOWS: readonly number[] = [16_000, 32_000, 128_000];

/** `--windows 16000,32000`: the windows asked for (positive numbers), else the default ones. */
export function windowsFlag(flags: ReadonlyMap<string, string>): number[] {
  const given = flags.get('windows');
  return (given === undefined ? [...DEFAULT_BENCH_WINDOWS] : given.split(',').map(Number)).filter(
    (window) => window > 0,
  );
}
