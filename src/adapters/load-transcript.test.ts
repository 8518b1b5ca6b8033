import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidInputError } from '../core/errors/index.ts';
import { detectMessagesFormat, parseTranscriptText } from './detect-format.ts';
import { loadTranscriptFile, loadTranscripts } from './load-transcript.ts';
import { catchInvalidInput } from './testing/catch-invalid-input.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ctxkit-load-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const lines = (...values: unknown[]) => values.map((value) => JSON.stringify(value)).join('\n');

describe('parseTranscriptText detects the format', () => {
  it('corpus JSONL', () => {
    const text = lines(
      { role: 'user', content: 'go' },
      { role: 'assistant', content: '', tool_calls: [{ id: 'c', name: 'f', arguments: '{}' }] },
      { role: 'tool', content: 'ok', tool_call_id: 'c' },
    );
    expect(parseTranscriptText(text, 'a.jsonl').format).toBe('corpus');
  });

  it('OpenAI chat as an array, a request body and JSONL', () => {
    const messages = [
      { role: 'system', content: 's' },
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c', content: 'ok' },
    ];
    const asArray = parseTranscriptText(JSON.stringify(messages), 'a.json');
    expect(asArray.format).toBe('openai-chat');
    expect(asArray.transcript.system).toEqual(['s']);
    expect(parseTranscriptText(JSON.stringify({ model: 'gpt-4o', messages }), 'b.json')).toEqual(asArray);
    expect(parseTranscriptText(lines(...messages), 'c.jsonl')).toEqual(asArray);
  });

  it('Anthropic as a request body and as JSONL with a system line', () => {
    const messages = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'f', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'ok' }] },
    ];
    const body = parseTranscriptText(JSON.stringify({ system: 's', messages }), 'a.json');
    expect(body.format).toBe('anthropic-messages');
    expect(body.transcript.system).toEqual(['s']);
    expect(parseTranscriptText(lines({ system: 's' }, ...messages), 'b.jsonl')).toEqual(body);
  });

  it('uses the fallback when messages fit every format', () => {
    expect(detectMessagesFormat([{ role: 'user', content: 'hi' }], 'corpus')).toBe('corpus');
    expect(detectMessagesFormat([{ role: 'user', content: 'hi' }], 'openai-chat')).toBe('openai-chat');
    expect(detectMessagesFormat([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], 'corpus')).toBe(
      'openai-chat',
    );
  });

  it('reports errors against the line and the field, relative to the line', () => {
    const text = lines(
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c', type: 'function', function: { name: 1, arguments: '{}' } }],
      },
    );
    expect(catchInvalidInput(() => parseTranscriptText(text, 'x.jsonl'))).toMatchObject({
      file: 'x.jsonl',
      line: 2,
      field: 'tool_calls[0].function.name',
    });
  });

  it('names the line of a JSON syntax error in a .json file', () => {
    const error = catchInvalidInput(() =>
      parseTranscriptText('[\n{"role": "user", "content": "x"},\n{oops}\n]', 'x.json'),
    );
    expect(error).toMatchObject({ file: 'x.json', line: 3 });
  });

  it('rejects empty files and empty message lists', () => {
    expect(catchInvalidInput(() => parseTranscriptText('', 'e.jsonl'))).toMatchObject({ file: 'e.jsonl' });
    expect(catchInvalidInput(() => parseTranscriptText(' \n', 'e.json'))).toMatchObject({ file: 'e.json' });
    expect(catchInvalidInput(() => parseTranscriptText('[]', 'e.json')).message).toContain('no messages');
    expect(catchInvalidInput(() => parseTranscriptText('{"messages": []}', 'e.json')).message).toContain(
      'no messages',
    );
  });
});

describe('loadTranscripts', () => {
  it('loads one file, or every transcript in a directory in name order, skipping non-transcripts', async () => {
    await writeFile(join(dir, 'b.jsonl'), lines({ role: 'user', content: 'b' }));
    await writeFile(join(dir, 'a.json'), JSON.stringify([{ role: 'user', content: 'a' }]));
    await writeFile(join(dir, 'manifest.json'), JSON.stringify([{ file: 'a.json', license: 'MIT' }]));
    await writeFile(join(dir, 'notes.txt'), 'not loaded');

    const single = await loadTranscriptFile(join(dir, 'b.jsonl'));
    expect(single).toMatchObject({ file: join(dir, 'b.jsonl'), format: 'corpus' });

    const skipped: string[] = [];
    const loaded = await loadTranscripts(dir, { onSkip: (file) => skipped.push(file) });
    expect(loaded.map((entry) => [entry.file, entry.format])).toEqual([
      [join(dir, 'a.json'), 'openai-chat'],
      [join(dir, 'b.jsonl'), 'corpus'],
    ]);
    expect(skipped).toEqual([join(dir, 'manifest.json')]);
  });

  it('throws a typed error naming the file when a transcript is malformed', async () => {
    const file = join(dir, 'bad.jsonl');
    await writeFile(file, lines({ role: 'user', content: 'ok' }, { role: 'robot', content: 'x' }));
    await expect(loadTranscriptFile(file)).rejects.toBeInstanceOf(InvalidInputError);
    await expect(loadTranscriptFile(file)).rejects.toMatchObject({ file, line: 2, field: 'role' });
  });
});
