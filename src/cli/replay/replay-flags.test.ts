import { describe, expect, it } from 'vitest';
import { ReplayInputError } from '../../core/errors/index.ts';
import { DEFAULT_CACHE_PRICING } from '../../replay/replay-types.ts';
import { distinctShortNames, renderTable, shorten } from './render-table.ts';
import { parsePricing, parseSeed, policyEntries } from './replay-flags.ts';

describe('replay flags', () => {
  it('splits --policy into presets, but never a file that exists', () => {
    expect(policyEntries(undefined)).toEqual([undefined]);
    expect(policyEntries('default, tiancai')).toEqual(['default', 'tiancai']);
    expect(policyEntries('package.json')).toEqual(['package.json']);
    expect(() => policyEntries('default,,tiancai')).toThrow(ReplayInputError);
  });

  it('reads --pricing, either price alone', () => {
    expect(parsePricing(undefined)).toEqual(DEFAULT_CACHE_PRICING);
    expect(parsePricing('read=0.5')).toEqual({ readMultiplier: 0.5, writeMultiplier: 1.25 });
    expect(parsePricing('write=1, read=0.1')).toEqual({ readMultiplier: 0.1, writeMultiplier: 1 });
    for (const bad of [
      'read',
      'read=',
      'read=-1',
      'cache=0.1',
      'read=0.1=2',
      'read=0x10',
      'read=1e3',
      'read=Infinity',
    ]) {
      expect(() => parsePricing(bad), bad).toThrow(ReplayInputError);
    }
  });

  it('reads --seed for --demo only', () => {
    expect(parseSeed(undefined, true, 42)).toBe(42);
    expect(parseSeed('7', true, 42)).toBe(7);
    expect(() => parseSeed('7', false, 42)).toThrow('--demo only');
    expect(() => parseSeed('-1', true, 42)).toThrow(ReplayInputError);
    expect(() => parseSeed('1.5', true, 42)).toThrow(ReplayInputError);
  });
});

describe('replay tables', () => {
  it('aligns on visible width, colours excluded', () => {
    const table = renderTable(
      ['name', 'n'],
      [
        ['a', '\x1b[31m10\x1b[39m'],
        ['bb', '2'],
      ],
      { indent: '' },
    );
    expect(table.split('\n')).toEqual(['name   n', '────  ──', 'a     \x1b[31m10\x1b[39m', 'bb     2']);
  });

  it('shortens names in the middle and keeps them apart', () => {
    expect(shorten('abcdefghij', 6)).toBe('abc…ij');
    const names = distinctShortNames(
      ['run__replay__alpha1_variant__tail_part_x', 'run__replay__beta2_variant__tail_part_x', 'short'],
      20,
    );
    expect(names[2]).toBe('short');
    expect(new Set(names).size).toBe(3);
    expect(names[0]).toContain('alpha1');
    expect(names[1]).toContain('beta2');
  });
});
