import { expect, it } from 'vitest';
import { PRESETS } from '../core/policy/presets/index.ts';
import { assistant, callsTo, result, user } from '../testing/build-messages.ts';
import { createContextManager } from './context-manager.ts';

it('a result snipped to fit and later offloaded is stored whole: reading it back returns the output, not the snip', async () => {
  const manager = createContextManager({
    policy: PRESETS.default,
    contextWindow: 2_500,
    maxOutputTokens: 300,
  });
  const output = Array.from({ length: 180 }, (_, i) => `line ${i}: value_${i} = compute(${i})`).join('\n');
  await manager.append('s', [
    user('read it'),
    callsTo(['c1', 'read', '{}']),
    result('c1', output, { name: 'read' }),
  ]);
  await manager.prepare('s', {});
  for (let n = 0; n < 8; n++) {
    await manager.append('s', [
      assistant(`ok ${n}`),
      user(`next ${n}`),
      callsTo([`d${n}`, 'read', '{}']),
      result(`d${n}`, `medium ${n} `.repeat(150), { name: 'read' }),
    ]);
    await manager.prepare('s', {});
  }
  const { edits } = await manager.history('s');
  // First snipped to fit the window, then offloaded by clearing: both happened to the same result.
  expect(
    edits.some((edit) => edit.type === 'truncate-result' && edit.layer === 'snip' && edit.target === 2),
  ).toBe(true);
  const offloaded = edits.find((edit) => edit.type === 'evict' && edit.target === 2);
  expect(offloaded?.type).toBe('evict');
  if (offloaded?.type !== 'evict') return;
  expect(await manager.readOffloaded('s', offloaded.blobRef)).toBe(output);
});
