/**
 * The import rules `npm run check:deps` checks (dependency-cruiser). A `.cjs` file: the package is
 * `"type": "module"`, and dependency-cruiser reads its configuration with `require`.
 *
 * TypeScript is parsed with SWC (`@swc/core`, a devDependency): dependency-cruiser's TypeScript parser
 * needs the `typescript` package's JavaScript API, which TypeScript 7 (the project's compiler) no longer
 * has. SWC tells type-only imports (`import type`, `export type`) from runtime ones, as the rules below
 * need. Without it dependency-cruiser would read the TypeScript as JavaScript, lose that difference and
 * report wrong violations, so this file refuses to load without SWC.
 */
const manifest = require('./package.json');

try {
  require.resolve('@swc/core');
} catch {
  throw new Error(
    '.dependency-cruiser.cjs: @swc/core is not installed; without it TypeScript is read as JavaScript',
  );
}

/**
 * The top-level folders of `src/`, each importing only from itself and from the folders before it:
 * the data model and pure functions first, the commands and the published entries last.
 * `src/index.ts` counts as `entries`.
 */
const FOLDER_ORDER = [
  'core',
  'layers',
  'adapters',
  'providers',
  'summarize',
  'store',
  'engine',
  'agent',
  'replay',
  'integrations',
  'server',
  'cli',
  'entries',
];

/**
 * Test support: what only tests run. Whole folders (`src/testing/`, `src/conformance/`, any `testing/`
 * folder under `src/`), the test files themselves and the shared suites (`*.conformance.ts`).
 */
const TEST_SUPPORT = [
  '^src/(?:testing|conformance)/',
  '^src/.+/testing/',
  '[.]test[.]ts$',
  '[.]conformance[.]ts$',
];

/**
 * `ctxkit/testing` and `ctxkit/fake-provider`: the published entries whose job is to export test support
 * (the second the fake provider server alone, which must load without vitest).
 */
const TESTING_ENTRY = '^src/entries/(?:testing|fake-provider)[.]ts$';
/** The fake provider server and its entry: what `ctxkit/fake-provider` loads. */
const FAKE_PROVIDER = ['^src/entries/fake-provider[.]ts$', '^src/testing/fake-provider-server[^/]*[.]ts$'];

/** Packages in devDependencies only: not installed with ctxkit. */
const devOnly = Object.keys(manifest.devDependencies).filter(
  (name) => !(name in (manifest.peerDependencies ?? {})) && !(name in (manifest.dependencies ?? {})),
);

/** Optional peers: installed by whoever uses the feature that needs them, never by ctxkit. */
const optionalPeers = Object.keys(manifest.peerDependencies ?? {});

const escapeRegExp = (name) => name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
/** Where an import of one of these packages resolves (rules match the resolved path): `node_modules/ai/…`. */
const packagePath = (names) => `(?:^|/)node_modules/(?:${names.map(escapeRegExp).join('|')})/`;

const folderOrderRules = FOLDER_ORDER.map((folder, at) => {
  const allowed = FOLDER_ORDER.slice(0, at + 1).join('|');
  return {
    name: 'folder-order',
    severity: 'error',
    comment:
      `src/${folder}/ imports only from itself and from the folders before it (${FOLDER_ORDER.join(' → ')}). ` +
      'Type-only imports count too: a type import still couples the two folders. Test support is exempt; ' +
      'imports of test support are checked by no-test-support-in-production.',
    from: {
      path: folder === 'entries' ? '^src/(?:entries/|index[.]ts$)' : `^src/${folder}/`,
      pathNot: TEST_SUPPORT,
    },
    to: {
      path: '^src/',
      pathNot: [`^src/(?:${allowed})/`, '^src/(?:testing|conformance)/', ...TEST_SUPPORT],
    },
  };
});

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...folderOrderRules,
    {
      name: 'folder-not-in-order',
      severity: 'error',
      comment:
        'Every production file of src/ lives in one of the ordered folders (or is src/index.ts), so that ' +
        'folder-order covers it. A new top-level folder goes into FOLDER_ORDER in .dependency-cruiser.cjs.',
      from: {
        path: '^src/',
        pathNot: [`^src/(?:${FOLDER_ORDER.join('|')})/`, '^src/index[.]ts$', ...TEST_SUPPORT],
      },
      to: {},
    },
    {
      name: 'no-test-support-in-production',
      severity: 'error',
      comment:
        'Production code does not import test support: it is not built for the package (or is, only to ' +
        'be exported by ctxkit/testing) and may load test-only packages. The exceptions are ' +
        'src/entries/testing.ts and src/entries/fake-provider.ts, the published ctxkit/testing and ' +
        'ctxkit/fake-provider entries, which exist to export the helpers.',
      from: { path: '^src/', pathNot: [...TEST_SUPPORT, TESTING_ENTRY] },
      to: { path: TEST_SUPPORT },
    },
    {
      name: 'fake-provider-without-vitest',
      severity: 'error',
      comment:
        'ctxkit/fake-provider is the fake provider server for any test runner: neither its entry nor the ' +
        'server loads vitest or a conformance suite (which registers vitest tests).',
      from: { path: FAKE_PROVIDER, pathNot: '[.]test[.]ts$' },
      to: { path: [packagePath(['vitest']), '[.]conformance[.]ts$', '^src/entries/testing[.]ts$'] },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'No import cycles, type-only imports included. Exempting them (viaOnly: { dependencyTypesNot: ' +
        "['type-only'] }) would be safe at run time, since they are erased, but there is no cycle through " +
        'types to exempt, and a cycle of types still ties two modules together as tightly as folder-order ' +
        'counts them to. Revisit only for a cycle that is types alone and cannot be untied.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-unlisted-package',
      severity: 'error',
      comment:
        'Every package imported is in package.json: one that is not would work here by accident (hoisted ' +
        'by another package) and be missing for whoever installs ctxkit.',
      from: {},
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'] },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'Every import resolves to a file on disk: a typo or a removed module fails here.',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'no-dev-dependency-in-production',
      severity: 'error',
      comment:
        'Production code does not import a package that is only in devDependencies: it is not installed ' +
        'with ctxkit, so the installed package would fail to load (or, for a type-only import, its ' +
        'published types would name a package that is not there). Test support, bench/ and consumer/ may.',
      from: { path: '^src/', pathNot: TEST_SUPPORT },
      to: { path: packagePath(devOnly), dependencyTypes: ['npm-dev'] },
    },
    {
      name: 'optional-peer-loaded-on-demand',
      severity: 'error',
      comment:
        'The optional peers (ai, openai, @anthropic-ai/sdk, @langchain/core, langchain, vitest) may be ' +
        'missing. Outside src/integrations/ production code imports them only as types (erased) and loads ' +
        'them at run time through importOptionalDependency (src/providers/load-optional-dependency.ts), ' +
        'whose import takes the name from a variable and turns a missing package into a ' +
        'MissingDependencyError. The integrations import their framework directly: the entry that exports ' +
        'one (ctxkit/ai-sdk, ctxkit/langchain) is for users of that framework.',
      from: { path: '^src/', pathNot: [...TEST_SUPPORT, '^src/integrations/'] },
      to: { path: packagePath(optionalPeers), dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'integration-only-from-its-entry',
      severity: 'error',
      comment:
        'An integration imports its framework (an optional peer) at load, so only its own entry imports ' +
        'it: src/integrations/ai-sdk/ from src/entries/ai-sdk.ts, langchain/ from langchain.ts. Imported ' +
        'from anywhere else it would make that framework required for every user of that code.',
      from: { path: '^src/', pathNot: [...TEST_SUPPORT, '^src/integrations/', '^src/entries/'] },
      to: { path: '^src/integrations/' },
    },
    {
      name: 'integration-only-from-its-entry',
      severity: 'error',
      comment: 'An entry imports only its own integration (see above).',
      from: { path: '^src/entries/([^/]+)[.]ts$' },
      to: { path: '^src/integrations/', pathNot: '^src/integrations/$1/' },
    },
    {
      name: 'integration-only-from-its-entry',
      severity: 'error',
      comment: 'An integration does not import another one: that would require both frameworks.',
      from: { path: '^src/integrations/([^/]+)/', pathNot: TEST_SUPPORT },
      to: { path: '^src/integrations/', pathNot: '^src/integrations/$1/' },
    },
    {
      name: 'src-not-to-tooling',
      severity: 'error',
      comment:
        'bench/, consumer/ and scripts/ may import from src/, never the other way round: they are not ' +
        'part of the package.',
      from: { path: '^src/' },
      to: { path: '^(?:bench|consumer|scripts)/' },
    },
  ],
  options: {
    // SWC reports type-only imports as such by itself (tsPreCompilationDeps is for the TypeScript parser).
    parser: 'swc',
    // ESM throughout. `cjs` for the CommonJS packages loaded at first use (requireAtFirstUse, below).
    moduleSystems: ['es6', 'cjs'],
    // requireAtFirstUse('better-sqlite3') and requireCommonJs(...) load a package by name: checked
    // like an import, so the dependency rules see those packages too.
    exoticRequireStrings: ['requireAtFirstUse', 'requireCommonJs'],
    // The consumer fixtures are separate projects that install ctxkit itself.
    exclude: { path: '^consumer/fixtures/' },
    doNotFollow: { path: 'node_modules' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'types', 'node', 'default'],
      extensions: ['.ts', '.js', '.json'],
    },
  },
};
