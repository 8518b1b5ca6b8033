/**
 * `ctxkit/testing`: what people who build on ctxkit test with. A local HTTP server that speaks the
 * providers' real wire formats (OpenAI chat completions, Anthropic messages), whole and streamed, with
 * their replies and error shapes (in-stream errors too) and the window routes of local servers (Ollama,
 * vLLM, llama.cpp), and the conformance suites every store of ctxkit passes, for a store of your own
 * (they register vitest tests).
 */

export * from '../store/blob-store.conformance.ts';
export * from '../store/session-store.conformance.ts';
export * from '../store/skill-source.conformance.ts';
export * from '../store/trace-store.conformance.ts';
export * from '../testing/fake-provider-server.ts';
export * from '../testing/fake-provider-server-errors.ts';
export * from '../testing/fake-provider-server-message-reply.ts';
export * from '../testing/fake-provider-server-replies.ts';
export * from '../testing/fake-provider-server-streams.ts';
export {
  type FakeOllamaModel,
  type FakeServedWindows,
  llamaCppPropsBody,
  ollamaPsBody,
  ollamaShowBody,
  vllmModelsBody,
} from '../testing/fake-provider-server-windows.ts';
