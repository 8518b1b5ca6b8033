import pc from 'picocolors';
import { type ContextLevelThresholds, contextLevel } from '../core/budget/context-level.ts';

export type LevelColors = Pick<typeof pc, 'yellow' | 'red' | 'bold'>;

/**
 * The one colour function for a context percentage, in every place the CLI prints one (the replay
 * table, the chat's status line and `/context`): by its level under the policy's `display` thresholds,
 * yellow from `warnAt` (70 %), red from `dangerAt` (90 %), as deepagents's status bar.
 */
export function colourByLevel(
  text: string,
  pressure: number,
  display: ContextLevelThresholds,
  colors: LevelColors = pc,
): string {
  switch (contextLevel(pressure, display)) {
    case 'danger':
      return colors.red(colors.bold(text));
    case 'warn':
      return colors.yellow(text);
    case 'ok':
      return text;
  }
}
