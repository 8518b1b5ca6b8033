import { describe, expect, it } from 'vitest';
import { createMemorySkillSource } from './memory-skill-source.ts';
import { describeSkillSourceConformance, skillFile } from './skill-source.conformance.ts';

describeSkillSourceConformance('memory', async (trees) => ({ source: createMemorySkillSource(...trees) }));

describe('memory skill source', () => {
  it('returns a copy of its listing: a caller changing it changes nothing', async () => {
    const source = createMemorySkillSource({
      tidy: { 'SKILL.md': skillFile('tidy', 'Tidy up.', 'Body.\n') },
    });
    const first = await source.list();
    first.skills[0] = { name: 'forged', description: 'Forged.' };
    expect((await source.list()).skills).toEqual([{ name: 'tidy', description: 'Tidy up.' }]);
  });
});
