import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { ownCopy } from './own-copy.ts';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

describe('ownCopy', () => {
  it('equals the text, for any text', () => {
    for (const text of ['', 'a', 'x'.repeat(12), 'x'.repeat(13), 'ünïcode 🙂\n"quoted"\t', 'a\u0000b'])
      expect(ownCopy(text)).toBe(text);
  });

  it('does not keep the string it was sliced from alive', () => {
    collectGarbage();
    const before = process.memoryUsage().heapUsed;
    const kept: string[] = [];
    for (let index = 0; index < 20; index++) {
      const parent = `${'x'.repeat(2_000_000)}${index}`;
      kept.push(ownCopy(parent.slice(100, 1_100)));
    }
    collectGarbage();
    const retained = process.memoryUsage().heapUsed - before;
    expect(kept.every((text) => text.length === 1_000)).toBe(true);
    // The parents are 40 MB together; the copies 20 KB.
    expect(retained).toBeLessThan(10_000_000);
  });
});
