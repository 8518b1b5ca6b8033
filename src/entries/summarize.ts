/** `ctxkit/summarize`: the summarizers (extractive and model-backed) and their reports. */

export * from '../summarize/index.ts';
