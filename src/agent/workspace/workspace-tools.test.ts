import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toAnthropicTool, toOpenAITool } from '../../index.ts';
import { call, makeTempDir, toolContext, writeTree } from './workspace-test-helpers.ts';
import { createWorkspaceTools } from './workspace-tools.ts';

let root: string;
let remove: () => void;
const names = (options: { allowWrite?: boolean; allowCommands?: boolean }) =>
  createWorkspaceTools({ root, ...options }).map((tool) => tool.definition.name);

beforeEach(() => {
  ({ dir: root, remove } = makeTempDir());
  writeTree(root, { 'a.txt': 'alpha\n' });
});
afterEach(() => remove());

describe('createWorkspaceTools', () => {
  it('offers only the reading tools unless writes or commands are allowed', () => {
    expect(names({})).toEqual(['list_files', 'read_file', 'search_files']);
    expect(names({ allowWrite: true })).toEqual([
      'list_files',
      'read_file',
      'search_files',
      'write_file',
      'edit_file',
    ]);
    expect(names({ allowCommands: true })).toEqual([
      'list_files',
      'read_file',
      'search_files',
      'run_command',
    ]);
    expect(names({ allowWrite: true, allowCommands: true })).toHaveLength(6);
  });

  it('gives every tool a definition the providers accept', () => {
    for (const tool of createWorkspaceTools({ root, allowWrite: true, allowCommands: true })) {
      const { definition } = tool;
      expect(definition.name).toMatch(/^[a-z_]+$/);
      expect(definition.description?.length).toBeGreaterThan(40);
      expect(definition.parameters).toMatchObject({ type: 'object', additionalProperties: false });
      expect(toOpenAITool(definition).function.name).toBe(definition.name);
      expect(toAnthropicTool(definition).name).toBe(definition.name);
      // Every required field is a declared property.
      const parameters = definition.parameters as {
        properties: Record<string, unknown>;
        required?: string[];
      };
      for (const field of parameters.required ?? [])
        expect(Object.keys(parameters.properties)).toContain(field);
    }
  });

  it('works end to end: write, edit, read back, search', async () => {
    const tools = createWorkspaceTools({ root, allowWrite: true });
    const context = toolContext();
    await call(tools, 'write_file', { path: 'notes/todo.md', content: '- buy milk\n- call Bob\n' }, context);
    await call(
      tools,
      'edit_file',
      { path: 'notes/todo.md', oldText: 'call Bob', newText: 'call Alice' },
      context,
    );
    expect((await call(tools, 'read_file', { path: 'notes/todo.md' })).content).toContain('2: - call Alice');
    expect((await call(tools, 'search_files', { query: 'alice' })).content).toContain(
      'notes/todo.md:2: - call Alice',
    );
    expect(context.asked.map((request) => request.summary)).toEqual([
      'write notes/todo.md (22 bytes)',
      'edit notes/todo.md (line 2)',
    ]);
  });

  it("never lists, reads, searches or writes the private paths (the agent's own data directory)", async () => {
    writeTree(root, {
      '.ctxkit/sessions/other/secret.md': 'the other session said XYZZY\n',
      'src/b.ts': 'XYZZY\n',
    });
    const tools = createWorkspaceTools({ root, allowWrite: true, privatePaths: [`${root}/.ctxkit`] });
    const context = toolContext();
    const listing = (await call(tools, 'list_files', { includeSkipped: true, depth: 5 })).content;
    expect(listing).toContain('src/b.ts');
    expect(listing).not.toContain('.ctxkit');
    const found = (await call(tools, 'search_files', { query: 'XYZZY' })).content;
    expect(found).toContain('src/b.ts');
    expect(found).not.toContain('secret.md');
    for (const path of [
      '.ctxkit/sessions/other/secret.md',
      `${root}/.ctxkit/chat-settings.json`,
      'src/../.ctxkit/x',
    ]) {
      const read = await call(tools, 'read_file', { path });
      expect(read.isError).toBe(true);
      expect(read.content).toMatch(/own data directory/);
    }
    const write = await call(
      tools,
      'write_file',
      { path: '.ctxkit/chat-settings.json', content: '{}' },
      context,
    );
    expect(write.isError).toBe(true);
    expect(context.asked).toEqual([]);
  });
});
