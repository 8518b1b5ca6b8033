import { expect, it } from 'vitest';
import { PRESETS } from '../core/policy/presets/index.ts';
import { tokenFloor } from '../core/tokens/token-floor.ts';
import { callsTo, result, user } from '../testing/build-messages.ts';
import { createContextManager } from './context-manager.ts';

/** Random letters of the Cyrillic block: token units count a third of what tokenizers do. */
function randomCyrillic(letters: number): string {
  let state = 3;
  let text = '';
  for (let index = 0; index < letters; index++) {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    text += String.fromCodePoint(0x400 + ((state >>> 8) % 256));
  }
  return text;
}

it('the final guard’s bound for a model of unknown tokenizer never goes below the request’s byte floor', async () => {
  // A prior of a quarter token per unit (a policy's chars/16): units alone would bound the request low.
  const policy = { ...PRESETS.default, tokens: { ...PRESETS.default.tokens, charsPerToken: 16 } };
  const manager = createContextManager({ policy });
  const output = randomCyrillic(12_000);
  await manager.append('s', [user('cat it'), callsTo(['c1', 'cat', '{}']), result('c1', output)]);
  const prepared = await manager.prepare('s', { model: 'claude-sonnet-4-5', contextWindow: 200_000 });
  expect(prepared.stats.guard?.method).toBe('bound');
  expect(prepared.stats.guard?.tokens).toBeGreaterThanOrEqual(tokenFloor(output));
});
