import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * `openai` and `@anthropic-ai/sdk` are optional: ctxkit loads them on a client's first model call, never
 * with a module. Each case runs ctxkit's sources (through tsx) in a Node where a resolution hook makes
 * both packages look uninstalled and records every attempt to reach them.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SRC = new URL('../', import.meta.url);
const HIDE_SDKS = new URL('./hide-provider-sdks.mjs', import.meta.url).href;
const ASKED_MARKER = 'provider SDKs asked for: ';

/** Every entry of the package: the root, the subpaths. The CLI has a case of its own (it runs on import). */
const ENTRIES = [
  'index.ts',
  ...readdirSync(new URL('entries/', SRC))
    .filter((file) => file.endsWith('.ts'))
    .map((file) => `entries/${file}`),
];

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
  /** The specifiers of the hidden packages something tried to resolve. */
  asked: string[];
}

function runWithoutSdks(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', '--import', HIDE_SDKS, ...args],
      { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } },
      (error, stdout, stderr) => {
        const line = stderr.split('\n').find((candidate) => candidate.startsWith(ASKED_MARKER));
        resolve({
          status: error ? (typeof error.code === 'number' ? error.code : null) : 0,
          stdout,
          stderr,
          asked:
            line === undefined ? ['(the hook did not report)'] : JSON.parse(line.slice(ASKED_MARKER.length)),
        });
      },
    );
  });
}

/** An ES module script for `node -e`, with `src` bound to the URL of ctxkit's sources. */
function script(body: string): string[] {
  return ['--input-type=module', '-e', `const src = ${JSON.stringify(SRC.href)};\n${body}`];
}

/** The last line of stdout, as JSON. */
function lastJson(run: Run): unknown {
  return JSON.parse(run.stdout.trim().split('\n').at(-1) ?? 'null');
}

describe('the provider SDKs are optional', () => {
  it('the hook hides them: a static import of one fails as an uninstalled package does', async () => {
    const run = await runWithoutSdks(script("await import('openai');"));
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain("Cannot find package 'openai'");
    expect(run.asked).toEqual(['openai']);
  });

  it('every entry loads without them, and a manager prepares a request', async () => {
    const run = await runWithoutSdks(
      script(`
for (const entry of ${JSON.stringify(ENTRIES)}) await import(new URL(entry, src).href);
const { createContextManager, PRESETS } = await import(new URL('index.ts', src).href);
const manager = createContextManager({ policy: { ...PRESETS.default, model: 'gpt-4o' } });
await manager.append('s1', [{ role: 'user', parts: [{ type: 'text', text: 'Fix the failing test' }] }]);
const prepared = await manager.prepare('s1', { system: 'You are a coding agent.' });
await manager.afterTurn('s1');
console.log(JSON.stringify({ system: prepared.system, messages: prepared.messages.length }));
`),
    );
    expect(run.status, run.stderr).toBe(0);
    expect(lastJson(run)).toEqual({ system: 'You are a coding agent.', messages: 1 });
    expect(run.asked).toEqual([]);
  });

  it('the CLI starts without them', async () => {
    const run = await runWithoutSdks([fileURLToPath(new URL('cli/main.ts', SRC)), '--help']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('chat');
    expect(run.asked).toEqual([]);
  });

  it('a client is made without them; its first call says what to install', async () => {
    const run = await runWithoutSdks(
      script(`
const { createOpenAICompatibleClient, createAnthropicClient } = await import(new URL('entries/providers.ts', src).href);
const { chooseSummarizer } = await import(new URL('engine/choose-summarizer.ts', src).href);
const { PRESETS } = await import(new URL('index.ts', src).href);
const request = { model: 'm', messages: [{ id: 'u', seq: 0, role: 'user', parts: [{ type: 'text', text: 'hi' }], meta: {} }] };
const outcome = async (call) => {
  try {
    await call();
    return 'no error';
  } catch (error) {
    return { name: error.name, code: error.code, message: error.message, cause: error.cause?.code, packageName: error.packageName };
  }
};
const openai = createOpenAICompatibleClient({ baseUrl: 'http://127.0.0.1:9/v1' });
const anthropic = createAnthropicClient({ apiKey: '', baseUrl: 'http://127.0.0.1:9' });
const summarizer = chooseSummarizer({
  ...PRESETS.default,
  summarize: { ...PRESETS.default.summarize, model: { model: 'gpt-4o-mini', baseUrl: 'http://127.0.0.1:9/v1' } },
});
const summary = await outcome(() =>
  summarizer.summarize({
    messages: request.messages, throughSeq: 0, maxTokens: 500, toolResultMaxChars: 1800, countTokens: (text) => text.length,
  }),
);
console.log(JSON.stringify({
  openaiComplete: await outcome(() => openai.complete(request)),
  openaiStream: await outcome(async () => { for await (const _ of openai.stream(request)); }),
  anthropicComplete: await outcome(() => anthropic.complete(request)),
  anthropicStream: await outcome(async () => { for await (const _ of anthropic.stream(request)); }),
  summarizer: summarizer.name,
  summary,
}));
`),
    );
    expect(run.status, run.stderr).toBe(0);
    const missing = (packageName: string, feature: string) => ({
      name: 'MissingDependencyError',
      code: 'missing_dependency',
      message: `${feature} needs the \`${packageName}\` package: npm install ${packageName}`,
      cause: 'ERR_MODULE_NOT_FOUND',
      packageName,
    });
    const openai = missing('openai', 'the OpenAI-compatible model client');
    const anthropic = missing('@anthropic-ai/sdk', 'the Anthropic model client');
    expect(lastJson(run)).toEqual({
      openaiComplete: openai,
      openaiStream: openai,
      anthropicComplete: anthropic,
      anthropicStream: anthropic,
      summarizer: 'model:gpt-4o-mini',
      // A summary model that cannot be called fails like one that does not answer: the engine falls back.
      summary: {
        name: 'SummarizerError',
        code: 'summarizer_failed',
        message: `summary model call failed: ${openai.message}`,
        cause: 'missing_dependency',
      },
    });
    // The summary's client, then each call of the two clients: a failed load is not kept.
    expect(run.asked).toEqual(['openai', 'openai', 'openai', '@anthropic-ai/sdk', '@anthropic-ai/sdk']);
  });
});
