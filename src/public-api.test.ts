import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import pkg from '../package.json' with { type: 'json' };

/**
 * The package's export lists, pinned: a name added to or removed from an entry fails here until
 * `src/public-api.json` says so too, so the public API changes only on purpose. The root stays the few
 * names a README user needs; building blocks live in the subpath entries.
 */
const pinned = JSON.parse(readFileSync(new URL('./public-api.json', import.meta.url), 'utf8')) as Record<
  string,
  string[]
>;

/** The package's code entries (not `./package.json`), each with its compiled file and its types. */
const codeEntries = Object.entries(pkg.exports).flatMap(([entry, target]) =>
  typeof target === 'string' ? [] : [{ entry, target }],
);

/** The source a compiled entry is built from: `./dist/x/y.js` ← `src/x/y.ts`. */
function sourceOf(compiled: string): string {
  return compiled.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts');
}

describe('the public API', () => {
  it('has the entries package.json names, each pinned', () => {
    expect(codeEntries.map(({ entry }) => entry).sort()).toEqual(Object.keys(pinned).sort());
  });

  it('gives every entry its types beside its code, for import and for require', () => {
    for (const { entry, target } of codeEntries) {
      expect(Object.keys(target), entry).toEqual(['types', 'import', 'default']);
      expect(target.types, entry).toBe(target.import.replace(/\.js$/, '.d.ts'));
      expect(target.default, entry).toBe(target.import);
    }
  });

  for (const { entry, target } of codeEntries) {
    it(`${entry === '.' ? 'ctxkit' : `ctxkit/${entry.slice(2)}`} exports exactly its pinned names`, async () => {
      const source = new URL(sourceOf(target.import), import.meta.url).href;
      const module = (await import(/* @vite-ignore */ source)) as object;
      expect(Object.keys(module).sort()).toEqual(pinned[entry]);
    });
  }

  it('keeps the root small: the manager, presets, stores, converters, events, errors and read tools', () => {
    const root = pinned['.'] ?? [];
    expect(root.length).toBeLessThan(120);
    for (const name of [
      'createContextManager',
      'PRESETS',
      'openEmbeddedStores',
      'toOpenAIChat',
      'fromAnthropicMessages',
      'readOffloadedTool',
      'CtxkitError',
      'startRetention',
    ])
      expect(root).toContain(name);
    // Every error class is reachable from the root, so `isInstance` is at hand wherever one is caught.
    expect(pinned['./core']?.filter((name) => name.endsWith('Error') && !root.includes(name))).toEqual([]);
  });
});
