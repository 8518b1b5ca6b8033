import { describe, expect, it } from 'vitest';
import { listSkillsText, renderSkillsIndex, skillIndexLine } from './render-skills-index.ts';
import { systemWithIndexes } from './system-with-indexes.ts';

const count = (text: string): number => Math.ceil(text.length / 4);
const SKILLS = [
  { name: 'git-bisect', description: 'Find the commit that broke a test.' },
  { name: 'pdf-forms', description: 'Fill in PDF forms\nfrom a table of   values.' },
];

describe('renderSkillsIndex', () => {
  it("shows every skill's name and description, one line each, and how to read one", () => {
    const { text, omitted } = renderSkillsIndex(SKILLS, { maxTokens: 10_000, count });
    expect(omitted).toBe(0);
    expect(text).toContain('read the skill first with the read_skill tool');
    expect(text).toContain(
      '- git-bisect: Find the commit that broke a test.\n- pdf-forms: Fill in PDF forms from a table of values.',
    );
  });

  it('shows nothing without skills', () => {
    expect(renderSkillsIndex([], { maxTokens: 10_000, count })).toEqual({ text: '', omitted: 0 });
  });

  it('clips from the end with a notice that says how to list them all', () => {
    const many = Array.from({ length: 200 }, (_, index) => ({
      name: `skill-${String(index).padStart(3, '0')}`,
      description: `Does task number ${index} well.`,
    }));
    const { text, omitted } = renderSkillsIndex(many, { maxTokens: 400, count });
    expect(count(text)).toBeLessThanOrEqual(400);
    expect(omitted).toBeGreaterThan(0);
    expect(text).toContain('- skill-000: Does task number 0 well.');
    expect(
      text.endsWith(
        `- … and ${omitted} more skills not listed here: read_skill with no name lists them all.`,
      ),
    ).toBe(true);
  });

  it('lists every skill for read_skill without a name', () => {
    expect(listSkillsText(SKILLS)).toBe(SKILLS.map(skillIndexLine).join('\n'));
    expect(listSkillsText([])).toBe('No skills are available.');
  });
});

describe('systemWithIndexes', () => {
  it("puts the caller's prompt first, then the skills index, then the memory index, a blank line apart", () => {
    expect(systemWithIndexes('You are helpful.', { skills: 'S', memory: 'M' })).toBe(
      'You are helpful.\n\nS\n\nM',
    );
    expect(systemWithIndexes('', { memory: 'M' })).toBe('M');
    expect(systemWithIndexes('P', { skills: '', memory: '' })).toBe('P');
    expect(systemWithIndexes('P', {})).toBe('P');
  });
});
