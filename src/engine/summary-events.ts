/**
 * `summary-generated`: one event per summarizer call, from the call's `SummaryReport`, so callers can
 * count and price summaries (and the trace records them). The engine passes `onReport` with the input of
 * every summarizer call; background summaries keep their reports until a later call takes them up.
 */
import type { EditReason, LayerName } from '../core/edit.ts';
import type { ContextEvent } from '../core/events.ts';
import type { SummaryReport } from '../core/summary-report.ts';

/** What the summary was for: the edit's reason and layer. */
export interface SummaryPurpose {
  reason: EditReason;
  layer: LayerName;
}

export function summaryGeneratedEvent(
  sessionId: string,
  at: number,
  purpose: SummaryPurpose,
  report: SummaryReport,
): Extract<ContextEvent, { type: 'summary-generated' }> {
  return {
    type: 'summary-generated',
    sessionId,
    at,
    reason: purpose.reason,
    layer: purpose.layer,
    ...report,
  };
}

/** An `onReport` that appends each report to `events` as a `summary-generated` event. */
export function reportSummariesTo(
  events: ContextEvent[],
  sessionId: string,
  clock: () => number,
  purpose: SummaryPurpose,
): (report: SummaryReport) => void {
  return (report) => events.push(summaryGeneratedEvent(sessionId, clock(), purpose, report));
}
