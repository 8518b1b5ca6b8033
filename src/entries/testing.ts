/**
 * `ctxkit/testing`: what people who build on ctxkit test with. The fake provider server of
 * `ctxkit/fake-provider`, and the conformance suites every store of ctxkit passes, for a store of your own
 * (they register vitest tests, so this entry needs `vitest` installed; the server alone does not).
 */

export * from '../store/blob-store.conformance.ts';
export * from '../store/session-store.conformance.ts';
export * from '../store/skill-source.conformance.ts';
export * from '../store/trace-store.conformance.ts';
export * from './fake-provider.ts';
