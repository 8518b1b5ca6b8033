/** How full the context looks to a person: the status-bar colour of deepagents (ok, yellow, red). */
export type ContextLevel = 'ok' | 'warn' | 'danger';

/** The policy's `display` settings: the pressures at which the level turns warn and danger. */
export interface ContextLevelThresholds {
  warnAt: number;
  dangerAt: number;
}

/**
 * The level of a pressure (in the policy's own measure, as stats report it): `danger` from dangerAt,
 * `warn` from warnAt, else `ok`. deepagents's status bar: yellow at 70 %, red at 90 %. An infinite
 * pressure (input with no room left) is `danger`; one that is not a number has no fullness to show: `ok`.
 */
export function contextLevel(pressure: number, display: ContextLevelThresholds): ContextLevel {
  if (pressure >= display.dangerAt) return 'danger';
  if (pressure >= display.warnAt) return 'warn';
  return 'ok';
}
