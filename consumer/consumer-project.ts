/**
 * A fresh project that installs the packed package as a user does: `npm pack` here, then `npm install` of
 * the tarball in a new directory, with the consumer's own tools beside it at the
 * versions this repository tests (so npm finds them in its cache).
 */
import { type ExecFileSyncOptions, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const FIXTURES = join(ROOT, 'consumer/fixtures');

/** The version of a package as this repository installed it (an npm alias's own version too). */
export function installedVersion(name: string): string {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as {
    version: string;
  };
  return manifest.version;
}

export function run(command: string, args: readonly string[], options: ExecFileSyncOptions = {}): string {
  return execFileSync(command, args, {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    ...options,
    env: { ...process.env, NO_COLOR: '1', CTXKIT_CONFIG: '', ...options.env },
  }).toString();
}

/**
 * Packs the package once per run; returns the tarball's path. Packs the `dist/` the test run's global
 * setup built (`--ignore-scripts`): `prepare` would rebuild it in place while other test files run the CLI
 * from it. `npm run check:package` packs through `prepare` itself, before the tests.
 */
export function packTarball(): string {
  const destination = mkdtempSync(join(tmpdir(), 'ctxkit-pack-'));
  run('npm', ['pack', '--ignore-scripts', '--pack-destination', destination, '--loglevel=error'], {
    cwd: ROOT,
    stdio: 'pipe',
  });
  const [tarball] = readdirSync(destination).filter((name) => name.endsWith('.tgz'));
  if (tarball === undefined) throw new Error(`npm pack left no tarball in ${destination}`);
  return join(destination, tarball);
}

/**
 * A new project with the tarball as a dependency (a production install of ctxkit: npm never installs a
 * dependency's devDependencies) and `extra` packages at the versions given.
 */
export function createConsumerProject(
  name: string,
  tarball: string,
  extra: { dependencies?: Record<string, string>; devDependencies?: Record<string, string> } = {},
): string {
  const dir = join(mkdtempSync(join(tmpdir(), `ctxkit-consumer-${name}-`)), name);
  mkdirSync(dir);
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify(
      {
        name: `consumer-${name}`,
        private: true,
        type: 'module',
        dependencies: { ctxkit: `file:${tarball}`, ...extra.dependencies },
        devDependencies: { ...extra.devDependencies },
      },
      null,
      2,
    )}\n`,
  );
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], {
    cwd: dir,
    stdio: 'pipe',
  });
  return dir;
}
