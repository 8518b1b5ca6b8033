import { describe, expect, it } from 'vitest';
import { CtxkitError, MissingDependencyError } from '../core/errors/index.ts';
import { isPackageNotFound, loadOptionalDependency } from './load-optional-dependency.ts';

const OPENAI = { packageName: 'openai', feature: 'the OpenAI-compatible model client' };

/** An error as Node's ESM loader throws it. */
function moduleNotFound(message: string): Error {
  return Object.assign(new Error(message), { code: 'ERR_MODULE_NOT_FOUND' });
}

const rejecting = (error: unknown) => () => Promise.reject(error);

describe('loadOptionalDependency', () => {
  it('hands back what the import gives', async () => {
    const module = { default: class {} };
    await expect(loadOptionalDependency(OPENAI, async () => module)).resolves.toBe(module);
  });

  it('turns the package missing into a MissingDependencyError that says what to install', async () => {
    const notFound = moduleNotFound("Cannot find package 'openai' imported from /app/dist/providers/x.js");
    const error = await loadOptionalDependency(OPENAI, rejecting(notFound)).catch(
      (caught: unknown) => caught,
    );
    expect(MissingDependencyError.isInstance(error)).toBe(true);
    expect(CtxkitError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      code: 'missing_dependency',
      message: 'the OpenAI-compatible model client needs the `openai` package: npm install openai',
      packageName: 'openai',
      feature: 'the OpenAI-compatible model client',
      details: { packageName: 'openai', feature: 'the OpenAI-compatible model client' },
      cause: notFound,
    });
  });

  it('names a scoped package as npm does', async () => {
    const error = await loadOptionalDependency(
      { packageName: '@anthropic-ai/sdk', feature: 'the Anthropic model client' },
      rejecting(moduleNotFound("Cannot find package '@anthropic-ai/sdk' imported from /app/x.js")),
    ).catch((caught: unknown) => caught);
    expect((error as Error).message).toBe(
      'the Anthropic model client needs the `@anthropic-ai/sdk` package: npm install @anthropic-ai/sdk',
    );
  });

  it('rethrows, as it was, any other failure: installing the package would not fix it', async () => {
    for (const other of [
      // A package the SDK itself imports is missing.
      moduleNotFound("Cannot find package 'formdata-node' imported from /app/node_modules/openai/index.mjs"),
      // A file of the installed package is missing (a broken install).
      moduleNotFound("Cannot find module '/app/node_modules/openai/index.mjs' imported from /app/x.js"),
      // Another package whose name begins alike.
      moduleNotFound("Cannot find package 'openai-extra' imported from /app/x.js"),
      new SyntaxError('Unexpected token'),
      'not even an error',
    ]) {
      await expect(loadOptionalDependency(OPENAI, rejecting(other))).rejects.toBe(other);
    }
  });
});

describe('isPackageNotFound', () => {
  it('needs both the code and the package named', () => {
    expect(
      isPackageNotFound(moduleNotFound("Cannot find package 'openai' imported from /x.js"), 'openai'),
    ).toBe(true);
    expect(isPackageNotFound(new Error("Cannot find package 'openai' imported from /x.js"), 'openai')).toBe(
      false,
    );
    expect(isPackageNotFound(moduleNotFound("Cannot find package 'openai' imported from /x.js"), 'ai')).toBe(
      false,
    );
    expect(isPackageNotFound(undefined, 'openai')).toBe(false);
  });
});
