/**
 * What `run.ts` and each system's process (`run-system.ts`) say to each other, and how the parent makes
 * one time of each call out of several timed passes.
 */
import type { ScoredRun } from './aggregate.ts';
import type { CtxkitSource } from './ctxkit-engine.ts';

/** What the parent asks a system's process to do. */
export interface SystemRunRequest {
  system: string;
  windows: number[];
  sessions: string[];
  maxOutputTokens: number;
  model: string | undefined;
  /** Which ctxkit its systems run (`ctxkit-engine.ts`); the sources when not said. */
  ctxkitFrom?: CtxkitSource;
}

export interface SystemRunReport {
  system: string;
  /** Untimed passes over the long session before the measured runs, and the median per-call ms of each. */
  warmUp: { passes: number; medianMs: number[] };
  windows: { window: number; runs: ScoredRun[]; config: unknown; wallMs: number }[];
}

/**
 * The long session is timed this many times at each window, and each call's time is its median over
 * them: one pass of sub-millisecond calls on a shared machine moves by a third from run to run. The
 * passes of every system alternate (`run.ts`): this machine's speed drifts by a fifth over a quarter of an
 * hour, and systems timed one after the other, minutes apart, were compared at different speeds.
 */
export const LONG_SESSION_TIMED_PASSES = 3;

/** What the parent sends a system's process. */
export type SystemProcessRequest =
  | { kind: 'run'; request: SystemRunRequest }
  | { kind: 'time'; window: number }
  | { kind: 'done' };

/** What a system's process answers. */
export type SystemProcessAnswer =
  | { kind: 'report'; report: SystemRunReport }
  | { kind: 'times'; times: number[] }
  | { kind: 'failed'; error: string };

/** Each call's median over passes of the same replay. */
export function medianPerCall(passes: readonly (readonly number[])[]): number[] {
  return (passes[0] ?? []).map((_, call) => medianOf(passes.map((pass) => pass[call] ?? 0)));
}

export function medianOf(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** The order the systems take their timed pass in a round: rotated by one system a round. */
export function turnOrder(systems: number, round: number): number[] {
  return Array.from({ length: systems }, (_, turn) => (turn + round) % systems);
}
