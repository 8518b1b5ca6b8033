export * from './calibrated-counter.ts';
export * from './calibrated-counter-registry.ts';
export * from './common-words.ts';
export * from './context-token-tally.ts';
export * from './count-runes.ts';
export * from './counted-text.ts';
export * from './create-token-counter.ts';
export * from './estimate-context-tokens.ts';
export * from './estimate-message-tokens.ts';
export * from './estimate-tool-definition-tokens.ts';
export * from './exact-counter.ts';
export * from './find-usage-anchor.ts';
export * from './heuristic-counter.ts';
export * from './measure-message.ts';
export * from './measure-request.ts';
export * from './message-fingerprint.ts';
export * from './message-token-cache.ts';
export * from './token-breakdown.ts';
export * from './token-counter.ts';
export * from './token-estimate-options.ts';
export {
  atLeastFloor,
  countDenseBytes,
  FLOOR_BYTES_PER_TOKEN,
  FLOOR_FREE_BYTES,
  tokenFloor,
  tokensForDenseBytes,
} from './token-floor.ts';
export { countTokenUnits, TOKEN_UNIT_WEIGHTS } from './token-units.ts';
