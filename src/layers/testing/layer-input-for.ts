import type { BudgetRegions } from '../../core/budget/context-budget.ts';
import type { DropEdit, Edit } from '../../core/edit.ts';
import type { Message } from '../../core/message.ts';
import { projectView, type ReadonlyView, type View } from '../../core/view/project-view.ts';
import { findPairingViolations } from '../../core/view/tool-pairing-repair.ts';
import type { LayerInput } from '../layer-input.ts';

/**
 * Test support: a LayerInput from a log and its edits, with a deterministic counter (ceil(chars / 4),
 * tiancai's heuristic), a fixed clock and numbered edit ids.
 */

export const TEST_NOW = 1_700_000_000_000;
export const TEST_MEDIA_TOKENS = 1_200;
export const TEST_MESSAGE_OVERHEAD = 4;

export const countTestTokens = (text: string): number => Math.ceil(text.length / 4);

export function testMessageTokens(message: Message): number {
  let tokens = TEST_MESSAGE_OVERHEAD;
  for (const part of message.parts) {
    switch (part.type) {
      case 'text':
      case 'reasoning':
        tokens += countTestTokens(part.text);
        break;
      case 'media':
        tokens += part.tokens ?? TEST_MEDIA_TOKENS;
        break;
      case 'tool-call':
        tokens += countTestTokens(part.callId + part.name + part.args);
        break;
      case 'tool-result':
        tokens += countTestTokens(part.callId + part.content);
        for (const media of part.media ?? []) tokens += media.tokens ?? TEST_MEDIA_TOKENS;
        break;
    }
  }
  return tokens;
}

export interface TestInputOptions {
  contextWindow?: number;
  maxOutputTokens?: number;
  system?: number;
  toolDefinitions?: number;
  summary?: number;
  /** Prefix of the ids `newId` hands out. */
  idPrefix?: string;
}

export function layerInputFor(
  log: readonly Message[],
  edits: readonly Edit[] = [],
  options: TestInputOptions = {},
): LayerInput {
  const view = projectView(log, edits);
  return inputForView(view, options);
}

export function inputForView(view: View, options: TestInputOptions = {}): LayerInput {
  const entryTokens = view.entries.map((entry) => testMessageTokens(entry.message));
  const history = entryTokens.reduce((sum, tokens) => sum + tokens, 0);
  const regions: BudgetRegions = {
    contextWindow: options.contextWindow ?? 200_000,
    maxOutputTokens: options.maxOutputTokens ?? 8_000,
    system: options.system ?? 0,
    toolDefinitions: options.toolDefinitions ?? 0,
    summary: options.summary ?? 0,
    history,
  };
  let next = 0;
  const prefix = options.idPrefix ?? 'edit';
  return {
    view,
    entries: view.entries,
    entryTokens,
    regions,
    countTokens: countTestTokens,
    now: TEST_NOW,
    newId: () => `${prefix}-${++next}`,
  };
}

/** A drop through `throughSeq`, as the engine records a cut. */
export function dropThrough(throughSeq: number, id = 'drop-test'): DropEdit {
  return {
    id,
    at: TEST_NOW,
    layer: 'drop',
    reason: 'context_pressure',
    tokensBefore: 0,
    tokensAfter: 0,
    type: 'drop',
    throughSeq,
  };
}

export const messagesOf = (view: ReadonlyView): Message[] => view.entries.map((entry) => entry.message);

/** Provider-visible pairing problems in the view the edits produce. */
export function violationsAfter(log: readonly Message[], edits: readonly Edit[]) {
  return findPairingViolations(messagesOf(projectView(log, edits)));
}

/** Stand-in results the view had to invent, and results it had to leave out: repairs a cut should never cause. */
export function repairsIn(view: ReadonlyView): { standIns: number; orphaned: number } {
  const standIns = view.entries.filter(
    (entry) => entry.sourceSeq === undefined && entry.message.role === 'tool',
  ).length;
  const orphaned = [...view.coverage.values()].filter((reason) => reason.by === 'orphan-result').length;
  return { standIns, orphaned };
}
