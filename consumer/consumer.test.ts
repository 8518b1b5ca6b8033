/**
 * The package as a user gets it: packed, installed from the tarball into fresh projects, then used
 * through every door with plain `node`, a TypeScript compiler, a bundler and the `ctxkit` command.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { promisedOutput, readmeExample } from '../src/testing/readme-examples.ts';
import {
  createConsumerProject,
  FIXTURES,
  installedVersion,
  packTarball,
  ROOT,
  run,
} from './consumer-project.ts';

const INSTALL_TIMEOUT_MS = 600_000;
const TYPESCRIPT_5 = '5.9.3';
const NODE = process.execPath;

let tarball = '';
/** ctxkit alone, as `npm install ctxkit` leaves it. */
let bare = '';
/** ctxkit beside AI SDK 7, LangChain.js, TypeScript and vitest. */
let full = '';
/** ctxkit beside AI SDK 6. */
let aiSdk6 = '';

function node(project: string, args: readonly string[]): string {
  return run(NODE, args, { cwd: project, stdio: 'pipe' });
}

/**
 * Runs a fixture from inside the project: run where it lies, under this repository, `ctxkit` would
 * resolve to the repository itself (a package may import itself by name) and every package to its
 * node_modules, not to what the project installed.
 */
function fixture(project: string, name: string, args: readonly string[] = []): string {
  const script = join(project, name);
  cpSync(join(FIXTURES, name), script);
  return node(project, [script, ...args]);
}

function lastJsonLine(output: string): unknown {
  return JSON.parse(output.trim().split('\n').at(-1) ?? 'null');
}

beforeAll(() => {
  tarball = packTarball();
  bare = createConsumerProject('bare', tarball);
  const typescript = {
    typescript: installedVersion('typescript'),
    '@types/node': installedVersion('@types/node'),
  };
  full = createConsumerProject('full', tarball, {
    dependencies: {
      ai: installedVersion('ai'),
      langchain: installedVersion('langchain'),
      '@langchain/core': installedVersion('@langchain/core'),
    },
    devDependencies: {
      ...typescript,
      // The compiler many projects still pin, beside the current one.
      'typescript-5': `npm:typescript@${TYPESCRIPT_5}`,
      vitest: installedVersion('vitest'),
    },
  });
  aiSdk6 = createConsumerProject('ai6', tarball, {
    dependencies: { ai: installedVersion('ai-v6') },
    // AI SDK 6's own declarations import `json-schema` types, which a strict consumer must install anyway.
    devDependencies: { ...typescript, '@types/json-schema': installedVersion('@types/json-schema') },
  });
}, INSTALL_TIMEOUT_MS);

describe('the packed package', () => {
  it('holds compiled code, types, the README and the LICENSE, and nothing a user does not need', () => {
    const listing = run('tar', ['-tzf', tarball], { stdio: 'pipe' })
      .trim()
      .split('\n')
      .map((path) => path.replace(/^package\//, ''));
    expect(listing).toContain('dist/index.js');
    expect(listing).toContain('dist/index.d.ts');
    expect(listing).toContain('dist/cli/main.js');
    expect(listing).toContain('bin/ctxkit.js');
    expect(listing).toContain('README.md');
    expect(listing).toContain('LICENSE');
    const unwanted = listing.filter(
      (path) =>
        /\.test\.|\.conformance\.test\.|(^|\/)fixtures\/|^bench\/|^\.ci\/|^src\/|^consumer\/|^scripts\/|\.ts$/.test(
          path,
        ) && !path.endsWith('.d.ts'),
    );
    expect(unwanted).toEqual([]);
  });

  it('installs without TypeScript or tsx: the bin and the entries are JavaScript', () => {
    const installed = run('npm', ['ls', '--all', '--parseable'], { cwd: bare, stdio: 'pipe' });
    expect(installed).not.toMatch(/node_modules\/(tsx|typescript)$/m);
    expect(readFileSync(join(bare, 'node_modules/ctxkit/bin/ctxkit.js'), 'utf8')).not.toContain('tsx');
  });
});

describe('plain node', () => {
  it('ESM: the root API and two subpaths', () => {
    expect(lastJsonLine(fixture(bare, 'library.mjs'))).toEqual({
      system: 'You are a coding agent.',
      messages: 1,
      view: 2,
      tokens: 2,
      overflow: true,
      adoptedWindow: 8_192,
      turnEnded: true,
    });
  });

  it('ctxkit/fake-provider answers without vitest; ctxkit/testing, which needs it, names it', () => {
    const result = lastJsonLine(fixture(bare, 'fake-provider.mjs')) as Record<string, unknown>;
    expect(result).toMatchObject({ status: 200, content: 'hello from the fake', requests: 1 });
    expect(result.testing).toMatch(/'vitest'/);
  });

  it('ESM: every entry imports and exports every name the package pins', () => {
    const pinned = join(full, 'public-api.json');
    cpSync(join(ROOT, 'src/public-api.json'), pinned);
    const result = lastJsonLine(fixture(full, 'entries.mjs', [pinned])) as {
      entries: number;
      missing: string[];
    };
    expect(result.missing).toEqual([]);
    expect(result.entries).toBe(Object.keys(JSON.parse(readFileSync(pinned, 'utf8'))).length);
  });

  it('CommonJS: every entry loads with require() and exports every pinned name', () => {
    const pinned = join(full, 'public-api.json');
    cpSync(join(ROOT, 'src/public-api.json'), pinned);
    const result = lastJsonLine(fixture(full, 'entries.cjs', [pinned])) as {
      entries: number;
      missing: string[];
    };
    expect(result.missing).toEqual([]);
    expect(result.entries).toBe(Object.keys(JSON.parse(readFileSync(pinned, 'utf8'))).length);
  });

  it("CommonJS: require('ctxkit') and a subpath", () => {
    expect(lastJsonLine(fixture(bare, 'require.cjs'))).toEqual({ messages: 1, tokens: 2 });
  });
});

describe('TypeScript consumers (strict, skipLibCheck false)', () => {
  /** The compiler's report, empty when the project type-checks. */
  const tsc = (project: string, config: object, compiler = 'typescript'): string => {
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify(config, null, 2));
    const compiled = spawnSync(
      NODE,
      [join(project, 'node_modules', compiler, 'bin/tsc'), '--noEmit', '-p', 'tsconfig.json'],
      {
        cwd: project,
        encoding: 'utf8',
      },
    );
    return `${compiled.stdout}${compiled.stderr}${compiled.status === 0 ? '' : `(exit ${String(compiled.status)})`}`;
  };
  const strict = { strict: true, skipLibCheck: false, types: ['node'], noEmit: true };

  it.each([
    ['nodenext', { module: 'nodenext', moduleResolution: 'nodenext' }],
    ['bundler', { module: 'esnext', moduleResolution: 'bundler' }],
  ])('moduleResolution %s: every entry, AI SDK 7 and LangChain.js', (_name, resolution) => {
    cpSync(join(FIXTURES, 'types-consumer.ts'), join(full, 'consumer.ts'));
    expect(tsc(full, { compilerOptions: { ...resolution, ...strict }, files: ['consumer.ts'] })).toBe('');
  });

  it(`TypeScript ${TYPESCRIPT_5}, moduleResolution nodenext: every entry, AI SDK 7 and LangChain.js`, () => {
    cpSync(join(FIXTURES, 'types-consumer.ts'), join(full, 'consumer.ts'));
    const config = {
      compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', ...strict },
      files: ['consumer.ts'],
    };
    expect(tsc(full, config, 'typescript-5')).toBe('');
  });

  it('moduleResolution nodenext: the AI SDK middleware under AI SDK 6', () => {
    cpSync(join(FIXTURES, 'types-consumer-ai6.ts'), join(aiSdk6, 'consumer.ts'));
    const config = {
      compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', ...strict },
      files: ['consumer.ts'],
    };
    expect(tsc(aiSdk6, config)).toBe('');
  });

  it('sees a type error in a consumer: the check can fail', () => {
    writeFileSync(
      join(full, 'wrong.ts'),
      "import { createContextManager } from 'ctxkit';\ncreateContextManager({ policy: 42 });\n",
    );
    const config = {
      compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', ...strict },
      files: ['wrong.ts'],
    };
    expect(tsc(full, config)).toMatch(/wrong\.ts\(2,\d+\): error TS2322/);
  });
});

describe('an esbuild bundle', () => {
  it('of a script using the library (SQLite store, YAML, skills) runs with plain node, no banner', () => {
    const out = join(bare, 'bundle.mjs');
    const esbuild = join(ROOT, 'node_modules/.bin/esbuild');
    cpSync(join(FIXTURES, 'bundle-app.mjs'), join(bare, 'app.mjs'));
    run(
      esbuild,
      ['app.mjs', '--bundle', '--platform=node', '--format=esm', `--outfile=${out}`, '--log-level=error'],
      {
        cwd: bare,
        stdio: 'pipe',
      },
    );
    const data = mkdtempSync(join(tmpdir(), 'ctxkit-bundle-data-'));
    expect(lastJsonLine(node(bare, [out, data]))).toEqual({
      messages: 1,
      logged: 1,
      config: { summarize: { trigger: 0.8 } },
      skills: ['deploy'],
    });
  });
});

describe('the ctxkit command, installed', () => {
  const ctxkit = (args: readonly string[]) =>
    run('npx', ['--no-install', 'ctxkit', ...args], { cwd: bare, stdio: 'pipe' });

  it('--version prints the package version', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(ctxkit(['--version']).trim()).toBe(manifest.version);
  });

  it('replay --demo runs on the embedded defaults', () => {
    const output = ctxkit(['replay', '--demo']);
    expect(output).toMatch(/^\s*overflows\s+0\b/m);
    expect(output).toMatch(/^\s*orphans\s+0\b/m);
    expect(output).toMatch(/^\s*retention\s+\d/m);
  }, 180_000);

  it('chat without the openai package says what to install, before any model call', () => {
    const chat = spawnSync(
      'npx',
      ['--no-install', 'ctxkit', 'chat', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm', 'hello'],
      {
        cwd: bare,
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1', CTXKIT_CONFIG: '', OPENAI_API_KEY: '' },
      },
    );
    expect(chat.stderr).toContain('npm install openai');
    expect(chat.status).toBe(2);
  });

  describe('serve', () => {
    let child: ChildProcess | undefined;
    afterAll(() => {
      // npx does not pass SIGTERM on to the server it started: the whole process group is stopped.
      if (child?.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
    });

    it('answers /healthz', async () => {
      const spawned = spawn('npx', ['--no-install', 'ctxkit', 'serve', '--port', '0'], {
        cwd: bare,
        env: { ...process.env, NO_COLOR: '1', CTXKIT_CONFIG: '' },
        detached: true,
      });
      child = spawned;
      let stderr = '';
      spawned.stderr.on('data', (chunk) => {
        stderr += String(chunk);
      });
      const url = await new Promise<string>((resolve, reject) => {
        let stdout = '';
        spawned.stdout.on('data', (chunk) => {
          stdout += String(chunk);
          const match = /listening on (http:\/\/\S+)/.exec(stdout);
          if (match?.[1]) resolve(match[1]);
        });
        spawned.once('exit', (code) => reject(new Error(`serve exited ${String(code)}: ${stderr}`)));
      });
      const response = await fetch(new URL('/healthz', url));
      expect(response.status).toBe(200);
    });
  });
});

describe("the README's examples, exactly as printed, with plain node", () => {
  it.each(['library', 'ai-sdk', 'langchain'])('%s', (name) => {
    // The README as the package ships it, not the repository's copy.
    const code = readmeExample(name, readFileSync(join(full, 'node_modules/ctxkit/README.md'), 'utf8'));
    const promised = promisedOutput(code);
    expect(promised.length, 'the example says what it prints').toBeGreaterThan(0);
    const dir = mkdtempSync(join(full, `example-${name}-`));
    const file = join(dir, 'example.mjs');
    writeFileSync(file, `${code}\n`);
    const printed = run(NODE, [file], { cwd: dir, stdio: 'pipe' }).trim().split('\n');
    expect(printed).toEqual(promised);
  });
});
