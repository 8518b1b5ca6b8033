import { describe, expect, it } from 'vitest';
import { promisedOutput, readmeExample } from './readme-examples.ts';

describe('readmeExample', () => {
  const page = [
    '# A page',
    '<!-- example: one -->',
    '```js',
    'console.log(1 + 1); // 2',
    '```',
    '<!-- example: typed -->',
    '```ts',
    'const n: number = 1;',
    '```',
    '<!-- example: loose -->',
    '',
    '```js',
    'x;',
    '```',
  ].join('\n');

  it('returns the js block right under its marker', () => {
    expect(readmeExample('one', page)).toBe('console.log(1 + 1); // 2');
    expect(promisedOutput(readmeExample('one', page))).toEqual(['2']);
  });

  it('refuses a missing or repeated marker, another language, or a gap before the block', () => {
    expect(() => readmeExample('absent', page)).toThrow('expected one "<!-- example: absent -->" line');
    expect(() => readmeExample('one', `${page}\n<!-- example: one -->\n`)).toThrow('expected one');
    expect(() => readmeExample('typed', page)).toThrow('right above a ```js block');
    expect(() => readmeExample('loose', page)).toThrow('right above a ```js block');
  });
});
