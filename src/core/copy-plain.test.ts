import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { copyPlain } from './copy-plain.ts';

describe('copyPlain', () => {
  it('equals the value, shares nothing mutable with it (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const copy = copyPlain(value);
        expect(copy).toEqual(value);
        if (value !== null && typeof value === 'object') expect(copy).not.toBe(value);
      }),
    );
  });

  it('leaves the original as it was when the copy is changed, however deep', () => {
    const original = { parts: [{ type: 'text', text: 'a', meta: { tags: ['x'] } }] };
    const copy = copyPlain(original);
    copy.parts[0]?.meta.tags.push('y');
    (copy.parts[0] as { text: string }).text = 'b';
    expect(original).toEqual({ parts: [{ type: 'text', text: 'a', meta: { tags: ['x'] } }] });
  });

  it('keeps an own __proto__ key as data, never as the copy’s prototype', () => {
    const hostile = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<string, unknown>;
    const copy = copyPlain(hostile);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect((copy as { polluted?: boolean }).polluted).toBeUndefined();
    expect(Object.keys(copy)).toEqual(['__proto__', 'a']);
  });

  it('copies what is not plain data as structuredClone does', () => {
    const at = new Date(0);
    const copy = copyPlain({ at, bytes: new Uint8Array([1, 2]) });
    expect(copy.at).toEqual(at);
    expect(copy.at).not.toBe(at);
    expect([...copy.bytes]).toEqual([1, 2]);
  });
});
