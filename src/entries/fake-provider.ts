/**
 * `ctxkit/fake-provider`: a local HTTP server that speaks the providers' real wire formats (OpenAI chat
 * completions, Anthropic messages), whole and streamed, with their replies and error shapes (in-stream
 * errors too) and the window routes of local servers (Ollama, vLLM, llama.cpp). It needs no test runner:
 * point any client at it from any test framework, or from a script.
 */

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
