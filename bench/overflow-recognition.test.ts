/**
 * The held-out overflow set's shape, not the recognizer's score: the benchmark only prints the score.
 */
import { describe, expect, it } from 'vitest';
import { readOverflowSet } from './overflow-recognition.ts';

const entries = readOverflowSet();
const overflows = entries.filter((entry) => entry.overflow);
const lookAlikes = entries.filter((entry) => !entry.overflow);

describe('fixtures/overflow-messages/held-out.json', () => {
  it('has every field with its type on every entry', () => {
    for (const entry of entries) {
      expect(typeof entry.provider).toBe('string');
      expect(typeof entry.message).toBe('string');
      expect(entry.message.trim()).not.toBe('');
      expect(entry.status === null || Number.isInteger(entry.status)).toBe(true);
      expect(entry.code === null || typeof entry.code === 'string').toBe(true);
      expect(entry.type === null || typeof entry.type === 'string').toBe(true);
      expect(typeof entry.overflow).toBe('boolean');
      if (entry.note !== undefined) expect(typeof entry.note).toBe('string');
    }
  });

  it('cites an http(s) address for every entry', () => {
    for (const entry of entries) expect(new URL(entry.source).protocol, entry.source).toMatch(/^https?:$/);
  });

  it('has overflows from at least 15 providers, at least 25 in all, and at least 15 look-alikes', () => {
    expect(new Set(overflows.map((entry) => entry.provider)).size).toBeGreaterThanOrEqual(15);
    expect(overflows.length).toBeGreaterThanOrEqual(25);
    expect(lookAlikes.length).toBeGreaterThanOrEqual(15);
  });

  it('has no message twice', () => {
    const messages = entries.map((entry) => entry.message);
    expect(messages.filter((message, index) => messages.indexOf(message) !== index)).toEqual([]);
  });
});
