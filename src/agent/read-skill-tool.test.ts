import { describe, expect, it } from 'vitest';
import { isReadSkillCall } from '../entries/agent.ts';
import {
  createContextManager,
  createMemorySkillSource,
  createReadSkillHandler,
  handleReadSkill,
  PRESETS,
  readSkillResultPart,
  readSkillTool,
  toAnthropicTool,
  toOpenAITool,
} from '../index.ts';

const skill = (name: string, description: string, body: string) =>
  `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;

const SKILLS = createMemorySkillSource({
  'pdf-forms': {
    'SKILL.md': skill('pdf-forms', 'Fill in PDF forms.', '# PDF forms\nRun scripts/fill.py.\n'),
    'scripts/fill.py': 'print("filled")\n',
    'big.txt': 'b'.repeat(50_000),
  },
  'git-bisect': { 'SKILL.md': skill('git-bisect', 'Find the commit that broke a test.', '# Bisect\n') },
});

const manager = () =>
  createContextManager({ policy: { ...PRESETS.default, model: 'gpt-4o' }, skills: SKILLS });

describe('the skill read tool, through the public API', () => {
  it('is named as the skills index names it, and converts to the OpenAI and Anthropic shapes', () => {
    expect(readSkillTool.name).toBe('read_skill');
    expect(toOpenAITool(readSkillTool)).toEqual({
      type: 'function',
      function: {
        name: 'read_skill',
        description: readSkillTool.description,
        parameters: readSkillTool.parameters,
      },
    });
    expect(toAnthropicTool(readSkillTool)).toEqual({
      name: 'read_skill',
      description: readSkillTool.description,
      input_schema: readSkillTool.parameters,
    });
    expect(isReadSkillCall({ name: 'read_skill' })).toBe(true);
  });

  it("reads a skill's body, a file beside it, and with no name lists every skill", async () => {
    const { skills } = manager();
    expect(await handleReadSkill(skills, { name: 'pdf-forms' })).toMatchObject({
      isError: false,
      content: '# PDF forms\nRun scripts/fill.py.\n',
    });
    expect((await handleReadSkill(skills, '"git-bisect"')).content).toBe('# Bisect\n');
    expect((await handleReadSkill(skills, { name: 'pdf-forms', path: 'scripts/fill.py' })).content).toBe(
      'print("filled")\n',
    );
    expect((await handleReadSkill(skills, {})).content).toBe(
      '- git-bisect: Find the commit that broke a test.\n- pdf-forms: Fill in PDF forms.',
    );
    expect((await handleReadSkill(skills, undefined)).content).toContain('- pdf-forms');
    const part = await readSkillResultPart(skills, {
      type: 'tool-call',
      callId: 'c9',
      name: 'read_skill',
      args: '{"name":"git-bisect"}',
    });
    expect(part).toEqual({
      type: 'tool-result',
      callId: 'c9',
      name: 'read_skill',
      content: '# Bisect\n',
      isError: false,
    });
  });

  it('answers unknown skills, paths out of a skill and bad arguments with errors the model can act on', async () => {
    const handler = createReadSkillHandler(manager().skills);
    expect(await handler({ name: 'nope' })).toMatchObject({ isError: true, code: 'not_found' });
    expect((await handler({ name: 'nope' })).content).toMatch(/read_skill with no name lists every skill/);
    expect(await handler({ name: 'pdf-forms', path: '../git-bisect/SKILL.md' })).toMatchObject({
      code: 'invalid_path',
    });
    expect(await handler({ name: 'pdf-forms', path: '/etc/passwd' })).toMatchObject({ code: 'invalid_path' });
    expect(await handler({ name: 'pdf-forms', path: 'missing.md' })).toMatchObject({ code: 'not_found' });
    expect((await handler({ path: 'scripts/fill.py' })).content).toMatch(/"path" needs the "name"/);
    expect((await handler({ name: 'pdf-forms', mode: 'raw' })).content).toMatch(/unknown argument mode/);
    expect((await handler({ name: 7 })).code).toBe('invalid_arguments');
    expect(await handleReadSkill(undefined, { name: 'pdf-forms' })).toMatchObject({ code: 'not_found' });
    expect((await handleReadSkill(undefined, {})).content).toBe('No skills are available.');
  });

  it('reads a large file a part at a time', async () => {
    const { skills } = manager();
    const first = await handleReadSkill(skills, { name: 'pdf-forms', path: 'big.txt', limit: 30_000 });
    expect(first.nextOffset).toBe(30_000);
    expect(first.content).toContain(
      'Next: read_skill({"name":"pdf-forms","path":"big.txt","offset":30000,"limit":30000})',
    );
    const second = await handleReadSkill(skills, {
      name: 'pdf-forms',
      path: 'big.txt',
      offset: 30_000,
      limit: 30_000,
    });
    expect(second.nextOffset).toBeUndefined();
    expect(second.content).toMatch(/This is the end\.\]\nb{20000}$/);
  });
});
