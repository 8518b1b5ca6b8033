import { textOf } from '../../src/core/message.ts';
import type { ModelClient } from '../../src/providers/model-client.ts';
import { withStreamFromComplete } from '../../src/providers/stream-events-of-response.ts';
import type { SummaryModel } from './summary-model.ts';

/** Name ctxkit's model-backed summarizer is given for the bench's summary model. */
export const SUMMARY_MODEL_NAME = 'bench-extractive-summary';

/**
 * The bench's summary model as a ctxkit {@link ModelClient}: `complete()` answers with the extractive
 * summary of the transcript in the prompt, capped at the request's `maxOutputTokens`.
 */
export function summaryModelClient(model: SummaryModel): ModelClient {
  return withStreamFromComplete({
    provider: 'bench',
    async complete(request) {
      const prompt = request.messages.map((message) => textOf(message)).join('\n\n');
      const text = model.summarize(prompt, request.maxOutputTokens, request.system);
      return {
        message: {
          id: `summary-reply-${model.calls}`,
          seq: 0,
          role: 'assistant',
          parts: [{ type: 'text', text }],
          meta: {},
        },
        usage: { inputTokens: 0, outputTokens: 0 },
        stopReason: 'stop',
        model: request.model,
      };
    },
  });
}
