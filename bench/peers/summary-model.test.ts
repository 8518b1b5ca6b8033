import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/message.ts';
import { createExactCounter } from '../../src/core/tokens/exact-counter.ts';
import { renderTranscriptMessage } from '../../src/summarize/render-transcript.ts';
import { BLOCK_SEPARATOR } from '../../src/summarize/select-transcript.ts';
import { buildSummaryPrompt } from '../../src/summarize/summary-prompt.ts';
import { createSummaryModel, readConversation } from './summary-model.ts';

describe('the bench summary model', () => {
  it("reads LangChain's buffer string, tool calls and a previous summary included", () => {
    const prompt = [
      '<messages>',
      'Messages to summarize:',
      'Human: Here is a summary of the conversation to date:',
      '',
      '## User requests',
      '- fix the login bug',
      'Human: now run the tests in src/app.test.ts',
      'AI: Running them.[{"name":"bash","args":{"command":"npm test"},"id":"c1","type":"tool_call"}]',
      'Tool: bash, FAIL src/app.test.ts',
      'Error: expected 1 to be 2',
      '</messages>',
    ].join('\n');
    const { messages, previous } = readConversation(prompt);
    expect(previous?.sections.requests).toEqual(['fix the login bug']);
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
    expect(messages[1]?.parts).toContainEqual(expect.objectContaining({ type: 'tool-call', name: 'bash' }));
    expect(messages[2]?.parts[0]).toMatchObject({ type: 'tool-result', name: 'bash' });
  });

  it("reads ctxkit's transcript blocks and answers deterministically", () => {
    const prompt = [
      '<previous-summary>\n(none: this is the first summary of this session)\n</previous-summary>',
      '',
      '<transcript>',
      '[#0 user]\nrename game_2048.py to 2048.py',
      '',
      '[#1 assistant]\nRenaming.\n→ call bash\n{"command": "mv game_2048.py 2048.py"}',
      '',
      '[#2 tool]\n← result of bash:\n(empty)',
      '</transcript>',
    ].join('\n');
    const { messages } = readConversation(prompt);
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
    expect(messages[1]?.parts).toEqual([
      { type: 'text', text: 'Renaming.' },
      expect.objectContaining({
        type: 'tool-call',
        name: 'bash',
        args: '{"command": "mv game_2048.py 2048.py"}',
      }),
    ]);
    const model = createSummaryModel();
    const summary = model.summarize(prompt);
    expect(summary).toContain('rename game_2048.py to 2048.py');
    expect(summary).toContain('mv game_2048.py 2048.py');
    expect(model.summarize(prompt)).toBe(summary);
    expect(model.calls).toBe(2);
  });

  it("reads back the calls of ctxkit's own rendering: several to a message, arguments over lines, none", () => {
    const messages: Message[] = [
      { id: 'a', seq: 0, role: 'user', parts: [{ type: 'text', text: 'tidy the repo' }], meta: {} },
      {
        id: 'b',
        seq: 1,
        role: 'assistant',
        parts: [
          { type: 'text', text: 'Two steps.' },
          { type: 'tool-call', callId: 'c1', name: 'bash', args: '{"command": "git status"}' },
          {
            type: 'tool-call',
            callId: 'c2',
            name: 'write',
            args: '{\n  "path": "a.txt",\n  "content": "x"\n}',
          },
          { type: 'tool-call', callId: 'c3', name: 'list_files', args: '' },
        ],
        meta: {},
      },
    ];
    const transcript = messages
      .map((message) => renderTranscriptMessage(message, { toolResultMaxChars: 1_800 }))
      .join(BLOCK_SEPARATOR);
    const prompt = buildSummaryPrompt({
      previous: undefined,
      transcript,
      instructions: undefined,
      maxTokens: 500,
    });
    const read = readConversation(prompt).messages[1]?.parts;
    expect(read?.map((part) => (part.type === 'tool-call' ? [part.name, part.args] : part.type))).toEqual([
      'text',
      ['bash', '{"command": "git status"}'],
      ['write', '{\n  "path": "a.txt",\n  "content": "x"\n}'],
      ['list_files', ''],
    ]);
  });

  it('counts what each summary cost: the prompt, instructions sent beside it, and the reply', () => {
    const model = createSummaryModel();
    const prompt = 'Human: fix the login bug in src/login.ts\nAI: Looking at it now.';
    const reply = model.summarize(prompt, 200, 'You summarize conversations.');
    const counter = createExactCounter('o200k');
    expect(model.inputTokens).toBe(counter.count(prompt) + counter.count('You summarize conversations.'));
    expect(model.outputTokens).toBe(counter.count(reply));
    model.summarize(prompt, 200);
    expect(model.inputTokens).toBe(2 * counter.count(prompt) + counter.count('You summarize conversations.'));
  });
});
