import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/message.ts';
import { workingCarry } from './working-carry.ts';

let seq = 0;
const message = (role: Message['role'], parts: Message['parts']): Message => ({
  id: `m${seq}`,
  seq: seq++,
  role,
  parts,
  meta: {},
});
const user = (text: string) => message('user', [{ type: 'text', text }]);
const call = (text: string, args: string) =>
  message('assistant', [
    { type: 'text', text },
    { type: 'tool-call', callId: `c${seq}`, name: 'bash', args },
  ]);
const reply = (text: string) => message('assistant', [{ type: 'text', text }]);
const result = (content: string) =>
  message('tool', [{ type: 'tool-result', callId: 'c', name: 'bash', content, isError: false }]);

// One token per character keeps the expectations readable.
const chars = (text: string) => text.length;

describe('workingCarry', () => {
  it('re-sends requests from the call after they arrive, and the call a result answers', () => {
    const messages = [
      user('fix it'), // 6
      call('look', '{"c":1}'), // call 0: nothing carried yet
      result('output'),
      call('again', 'xx'), // call 1: request (6) + the call it answers (4 + 7)
      result('more'),
      reply('done'), // call 2: request (6) + previous call (5 + 2)
      user('and the docs'), // 12
      reply('ok'), // call 3: follows a user message, so no call; request 1 only (request 2 is new here)
      user('thanks'),
      reply('bye'), // call 4: requests 1 and 2 (18); request 3 is new here
    ];
    expect(workingCarry(messages, chars)).toEqual([0, 17, 13, 6, 18]);
  });

  it('counts nothing for a session of one call', () => {
    expect(workingCarry([user('hello'), reply('hi')], chars)).toEqual([0]);
  });
});
