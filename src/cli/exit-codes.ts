/**
 * What `ctxkit` exits with. Scripts and CI tell the cases apart by these alone:
 *
 * - 0: done;
 * - 1: `replay --check` found a call that overflowed the window or separated a tool call from its result;
 * - 2: bad input, bad config, an unknown flag or model: the user can fix it, and the message says how;
 * - 70: a bug in ctxkit (EX_SOFTWARE), printed with its stack.
 */
export const EXIT_OK = 0;
export const EXIT_CHECK_FAILED = 1;
export const EXIT_BAD_INPUT = 2;
export const EXIT_INTERNAL_ERROR = 70;
