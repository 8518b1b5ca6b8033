/**
 * A module-resolution hook for tests (`node --import ./hide-provider-sdks.mjs …`): Node answers as if
 * `openai` and `@anthropic-ai/sdk` were not installed, which is what a user of ctxkit who calls no model
 * has. Every attempt to resolve them is recorded and printed to stderr on exit, as JSON after
 * `provider SDKs asked for: `, so a test also sees an attempt that the code caught and ignored. Nothing
 * is exported: importing this file registers the hook in the importing process.
 */
import { registerHooks } from 'node:module';

const HIDDEN_PACKAGES = ['openai', '@anthropic-ai/sdk'];
const ASKED_MARKER = 'provider SDKs asked for: ';

const asked = [];

registerHooks({
  resolve(specifier, context, nextResolve) {
    const hidden = HIDDEN_PACKAGES.find((name) => specifier === name || specifier.startsWith(`${name}/`));
    if (hidden === undefined) return nextResolve(specifier, context);
    asked.push(specifier);
    // What Node itself throws for a package that is not installed.
    const error = new Error(`Cannot find package '${hidden}' imported from ${context.parentURL}`);
    error.code = 'ERR_MODULE_NOT_FOUND';
    throw error;
  },
});

process.on('exit', () => {
  process.stderr.write(`\n${ASKED_MARKER}${JSON.stringify(asked)}\n`);
});
