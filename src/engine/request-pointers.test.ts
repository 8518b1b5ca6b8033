import { describe, expect, it } from 'vitest';
import type { Message, MessageInput } from '../core/message.ts';
import { mergePolicy } from '../core/policy/merge-policy.ts';
import { PRESETS } from '../core/policy/presets/index.ts';
import { callsTo, result, user } from '../testing/build-messages.ts';
import { LONG_SESSION, loadCorpusSession } from '../testing/corpus.ts';
import { asInput } from '../testing/replay-session.ts';
import { type ContextManager, createContextManager } from './context-manager.ts';
import type { PrepareResult } from './prepare-call.ts';
import type { PointerKind, RequestPointer } from './request-ledger.ts';

const clock = () => {
  let now = 1_700_000_000_000;
  return () => (now += 1_000);
};

/** Where a pointer says it sits: the text there must name its ref. */
function textAt(prepared: PrepareResult, pointer: RequestPointer): string {
  if (pointer.at.in === 'system') return prepared.system;
  const message = prepared.messages[pointer.at.messageIndex];
  expect(message?.id).toBe(pointer.at.messageId);
  const part = message?.parts[pointer.at.partIndex];
  if (!part) return '';
  if (part.type === 'text') return part.text;
  if (part.type === 'tool-result') return part.content;
  if (part.type === 'tool-call') return part.args;
  return '';
}

async function expectPointersValid(manager: ContextManager, prepared: PrepareResult): Promise<void> {
  for (const pointer of prepared.pointers) {
    expect(textAt(prepared, pointer)).toContain(pointer.ref);
    expect((await manager.readOffloaded('s', pointer.ref)).length).toBeGreaterThan(0);
  }
}

/** Every `read_offloaded("…")` ref in the request's text, found the slow way. */
function refsInText(prepared: PrepareResult): Set<string> {
  const refs = new Set<string>();
  const scan = (text: string) => {
    for (const match of text.matchAll(/read_offloaded(?:\(\\?"| tool \(ref \\?")([^"\\]+)\\?"\)/g))
      if (match[1]) refs.add(match[1]);
  };
  scan(prepared.system);
  for (const message of prepared.messages)
    for (const part of message.parts) {
      if (part.type === 'text') scan(part.text);
      if (part.type === 'tool-result') scan(part.content);
      if (part.type === 'tool-call') scan(part.args);
    }
  return refs;
}

/** Refs of the pointers that name `read_offloaded` (a transcript is named by path in the summary). */
const offloadedRefs = (prepared: PrepareResult) =>
  new Set(
    prepared.pointers
      .filter((pointer) => pointer.kind !== 'summarized-transcript')
      .map((pointer) => pointer.ref),
  );

const lines = (seed: number, count: number) =>
  Array.from(
    { length: count },
    (_, index) => `${seed}:${index} src/module_${index % 97}.ts ok in ${index * 3} ms`,
  ).join('\n');

describe('prepared.pointers', () => {
  it('names each spilled output, offloaded result and offloaded argument, where it sits', async () => {
    // Clearing from the first call, with no working set, so every kind of pointer appears in a short session.
    const offloadingEarly = mergePolicy(PRESETS.default, {
      model: 'gpt-4o',
      clearing: {
        trigger: 0,
        keepRecent: 1,
        keepRecentTokens: 0,
        keepRecentFraction: 0,
        minFreedFraction: 0,
      },
    });
    const manager = createContextManager({ policy: offloadingEarly, clock: clock() });
    const request = { system: 'You are a coding agent.', contextWindow: 64_000, maxOutputTokens: 4_000 };
    const steps: MessageInput[] = [
      user('Run the tests and fix what fails.'),
      // A whole file written in one call: long arguments, offloaded once the call is old.
      callsTo(['c0', 'write', JSON.stringify({ path: 'src/a.ts', content: lines(0, 60) })]),
      result('c0', 'written', { name: 'write' }),
      callsTo(['c1', 'bash', '{"command":"npm test"}']),
      // Far over the spill threshold: spilled to a blob as it arrives.
      result('c1', lines(1, 6_000), { name: 'bash' }),
      callsTo(['c2', 'read', '{"path":"src/b.ts"}']),
      result('c2', lines(2, 80), { name: 'read' }),
      callsTo(['c3', 'read', '{"path":"src/c.ts"}']),
      result('c3', lines(3, 80), { name: 'read' }),
      callsTo(['c4', 'read', '{"path":"src/d.ts"}']),
    ];
    const kinds = new Set<PointerKind>();
    let last: PrepareResult | undefined;
    for (const step of steps) {
      if (step.role === 'assistant') {
        last = await manager.prepare('s', request);
        await expectPointersValid(manager, last);
        expect(offloadedRefs(last)).toEqual(refsInText(last));
        for (const pointer of last.pointers) kinds.add(pointer.kind);
      }
      await manager.append('s', [step]);
    }
    expect([...kinds].sort()).toEqual(['offloaded-arguments', 'offloaded-result', 'spilled-output']);
    // Spilled on arrival, then offloaded by clearing once answered: the same blob, now behind a one-line pointer.
    const c1 = last?.pointers.find((pointer) => pointer.callId === 'c1');
    expect(c1).toMatchObject({ kind: 'offloaded-result', at: { in: 'message', partIndex: 0 } });
    expect(await manager.readOffloaded('s', c1?.ref ?? '')).toContain('1:5999 ');
  });

  it('names the summarized transcript, and follows the request through a long corpus session', async () => {
    const manager = createContextManager({ policy: { ...PRESETS.default, model: 'gpt-4o' }, clock: clock() });
    const messages: Message[] = loadCorpusSession(LONG_SESSION).messages;
    const request = { system: 'You are a coding agent.', contextWindow: 16_000, maxOutputTokens: 4_096 };
    const kinds = new Set<PointerKind>();
    let from = 0;
    let calls = 0;
    for (let index = 1; index < messages.length; index++) {
      if (messages[index]?.role !== 'assistant') continue;
      await manager.append('s', messages.slice(from, index).map(asInput));
      from = index;
      const prepared = await manager.prepare('s', request);
      for (const pointer of prepared.pointers) kinds.add(pointer.kind);
      // Checked in full on a sample of calls (reading blobs back is the slow part).
      if (calls++ % 25 === 0) {
        await expectPointersValid(manager, prepared);
        expect([...offloadedRefs(prepared)].sort(), `call ${calls}`).toEqual(
          [...refsInText(prepared)].sort(),
        );
      }
      const transcript = prepared.pointers.find((pointer) => pointer.kind === 'summarized-transcript');
      if (transcript) expect(textAt(prepared, transcript)).toContain(transcript.ref);
      await (await manager.afterTurn('s')).done;
    }
    expect(kinds.has('summarized-transcript')).toBe(true);
    expect(kinds.has('offloaded-result')).toBe(true);
  });
});
