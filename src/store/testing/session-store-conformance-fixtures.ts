/** Fixtures and the per-test runner the session store conformance suites share. */
import type { DropEdit, Edit } from '../../core/edit.ts';
import type { Message } from '../../core/message.ts';
import type { SessionStore } from '../session-store.ts';
import type { SessionDatabase, SessionStoreHarness } from './session-store-harness.ts';

/** Runs a test against one store on a fresh database, cleaning up whatever happens. */
export function storeRunner(
  harness: SessionStoreHarness,
): (test: (store: SessionStore, db: SessionDatabase) => Promise<void>) => Promise<void> {
  return async (test) => {
    const db = await harness.fresh();
    try {
      const store = await db.open();
      try {
        await test(store, db);
      } finally {
        await store.close();
      }
    } finally {
      await db.dispose();
    }
  };
}

/** A cut through seq 0. */
export const DROP_EDIT: DropEdit = {
  id: 'e0',
  at: 5,
  layer: 'drop',
  reason: 'hook',
  tokensBefore: 10,
  tokensAfter: 2,
  type: 'drop',
  throughSeq: 0,
  reminder: 'goal',
};

/** Renumbers messages to start at `from`. */
export function shift(messages: readonly Message[], from: number): Message[] {
  return messages.map((message, index) => ({
    ...message,
    seq: from + index,
    id: `${message.id}@${from + index}`,
  }));
}

/** Messages using every part type and every optional field. */
export function richMessages(): Message[] {
  return [
    {
      id: 'u0',
      seq: 0,
      role: 'user',
      parts: [
        { type: 'text', text: 'look at this' },
        {
          type: 'media',
          mediaType: 'image/png',
          ref: 'blob:abc',
          tokens: 85,
          detail: 'low',
          name: 'shot.png',
        },
      ],
      meta: { createdAt: 1_700_000_000_000, kind: 'message', userVisible: true },
    },
    {
      id: 'a1',
      seq: 1,
      role: 'assistant',
      parts: [
        { type: 'reasoning', text: 'thinking', signature: 'sig==' },
        { type: 'reasoning', text: '', redactedData: 'opaque' },
        { type: 'text', text: 'calling' },
        { type: 'tool-call', callId: 'c1', name: 'screenshot', args: '{"full": true}' },
      ],
      meta: { model: 'gpt-x', agentVisible: true },
      usage: {
        inputTokens: 100,
        outputTokens: 20,
        cacheReadTokens: 50,
        cacheWriteTokens: 5,
        reasoningTokens: 7,
      },
    },
    {
      id: 't2',
      seq: 2,
      role: 'tool',
      parts: [
        {
          type: 'tool-result',
          callId: 'c1',
          name: 'screenshot',
          content: 'done',
          isError: false,
          media: [{ type: 'media', mediaType: 'image/jpeg', ref: 'https://example.com/a.jpg' }],
        },
      ],
      meta: { kind: 'tool_result', agentVisible: false, userVisible: false },
    },
  ];
}

/** One edit of every type. */
export function everyEdit(): Edit[] {
  const base = { at: 10, tokensBefore: 100, tokensAfter: 50 } as const;
  return [
    { ...base, id: 'b', layer: 'sync', reason: 'history_diverged', type: 'branch', hiddenSeqs: [1, 2] },
    {
      ...base,
      id: 'tr',
      layer: 'normalize',
      reason: 'tool_output_limit',
      type: 'truncate-result',
      target: 2,
      content: 'do…',
      originalChars: 4,
    },
    {
      ...base,
      id: 'tt',
      layer: 'snip',
      reason: 'context_overflow',
      type: 'truncate-text',
      target: 1,
      text: 'cal…',
      originalChars: 7,
    },
    {
      ...base,
      id: 'ta',
      layer: 'emergency',
      reason: 'context_overflow',
      type: 'truncate-args',
      target: 1,
      callId: 'c1',
      args: '{"clipped":"…"}',
      originalChars: 900_000,
    },
    {
      ...base,
      id: 'ev',
      layer: 'normalize',
      reason: 'tool_output_limit',
      type: 'evict',
      target: 2,
      blobRef: 'large_tool_results/x',
      sha256: 'ab'.repeat(32),
      bytes: 4,
      content: 'preview + pointer',
    },
    {
      ...base,
      id: 'cl',
      layer: 'clear',
      reason: 'context_pressure',
      type: 'clear',
      targets: [2],
      placeholder: '[cleared]',
      clearInputs: true,
    },
    {
      ...base,
      id: 'ar',
      layer: 'archive',
      reason: 'tool_call_cutoff',
      type: 'archive',
      targets: [2],
      digest: 'screenshot ×1',
      digestAfterSeq: 2,
    },
    {
      ...base,
      id: 'ct',
      layer: 'compress-text',
      reason: 'token_budget',
      type: 'compress-text',
      fromSeq: 0,
      throughSeq: 2,
    },
    { ...base, id: 'hi', layer: 'emergency', reason: 'context_overflow', type: 'hide', targets: [1, 2] },
    {
      ...base,
      id: 'su',
      layer: 'summarize',
      reason: 'context_pressure',
      type: 'summarize',
      throughSeq: 1,
      summary: {
        text: 'the user asked for a screenshot',
        sections: { intent: ['screenshot'], next: [] },
        throughSeq: 1,
        tokens: 9,
        historyRef: 'conversation_history/s1.md',
        producer: 'extractive',
      },
      placement: 'own-message',
    },
    {
      ...base,
      id: 'dr',
      layer: 'drop',
      reason: 'hook',
      type: 'drop',
      throughSeq: 0,
      snapshot: {
        tools: [{ name: 'screenshot', description: 'takes one' }],
        memory: ['2026-11-21: screenshots'],
        toolExamples: [{ name: 'screenshot', args: '{"full": true}' }],
      },
    },
    {
      ...base,
      id: 're',
      layer: 'emergency',
      reason: 'context_overflow',
      type: 'reset',
      throughSeq: 2,
      keepSummary: false,
    },
  ];
}
