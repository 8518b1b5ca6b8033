import { describe, expect, it } from 'vitest';
import { InvalidInputError, InvalidPolicyError } from '../core/errors/index.ts';
import { PRESETS } from '../core/policy/presets/index.ts';
import { user } from '../testing/build-messages.ts';
import { createContextManager } from './context-manager.ts';

const policy = { ...PRESETS.default, model: 'gpt-4o' };

describe('prepare and stats refuse a malformed request, naming the field, and the session goes on', () => {
  it.each([
    [{ system: 42 }, 'request.system'],
    [{ system: ['a', 'b'] }, 'request.system'],
    [{ tools: 'bash' }, 'request.tools'],
    [{ tools: [{ name: 'ok' }, { name: 5 }] }, 'request.tools[1].name'],
    [{ tools: [null] }, 'request.tools[0]'],
    [{ tools: [{ name: 'x', parameters: 'schema' }] }, 'request.tools[0].parameters'],
    [{ tools: [{ name: 'x', injection: 'sometimes' }] }, 'tools[0].injection'],
    [{ contextWindow: -1 }, 'request.contextWindow'],
    [{ maxOutputTokens: 1.5 }, 'request.maxOutputTokens'],
    [{ model: '' }, 'request.model'],
    [null, 'request'],
    ['system prompt', 'request'],
  ])('%j names %s', async (request, field) => {
    const manager = createContextManager({ policy });
    await manager.append('s', [user('hello')]);
    for (const call of [
      () => manager.prepare('s', request as never),
      () => manager.stats('s', request as never),
    ]) {
      const error = await call().then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(InvalidInputError.isInstance(error)).toBe(true);
      expect((error as InvalidInputError).field).toBe(field);
    }
    // Nothing of the bad request was kept: the next call works as if it had not come.
    const prepared = await manager.prepare('s', {});
    expect(prepared.system).toBe('');
    expect(prepared.messages).toHaveLength(1);
  });
});

describe('createContextManager checks the policy it is given', () => {
  it.each([
    [{ ...policy, summarize: { ...policy.summarize, trigger: 7 } }, 'summarize.trigger'],
    [{ ...policy, retention: { maxIdleDays: -1 } }, 'retention.maxIdleDays'],
    [{ ...policy, sumarize: {} }, 'sumarize'],
    [null, 'policy'],
  ])('a bad policy names %s', (bad, key) => {
    let error: unknown;
    try {
      createContextManager({ policy: bad as never });
    } catch (caught) {
      error = caught;
    }
    expect(InvalidPolicyError.isInstance(error)).toBe(true);
    expect((error as InvalidPolicyError).key).toBe(key);
  });
});
