/**
 * vitest global setup: the CLI's tests run `bin/ctxkit.js` as a user does, and that runs the compiled
 * `dist/`. Build it when a source file is newer than the build, so a test never runs stale JavaScript.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const BUILT = join(ROOT, 'dist/cli/main.js');

function newestSourceMs(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSourceMs(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
      newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

function builtMs(): number {
  try {
    return statSync(BUILT).mtimeMs;
  } catch {
    return 0;
  }
}

export default function setup(): void {
  const inputs = Math.max(
    newestSourceMs(join(ROOT, 'src')),
    statSync(join(ROOT, 'tsconfig.build.json')).mtimeMs,
    statSync(join(ROOT, 'tsconfig.json')).mtimeMs,
  );
  if (builtMs() > inputs) return;
  const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
  try {
    execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'pipe' });
  } catch (error) {
    // Type errors still emit; `npm run typecheck` reports them. Only a build that produced nothing stops the run.
    if (builtMs() === 0) throw error;
  }
}
