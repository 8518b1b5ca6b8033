import type { Message, MessageInput } from '../../core/message.ts';
import { fromAiSdkPrompt } from './ai-sdk-prompt.ts';
import type { AiSdkSpecificationVersion, AiSdkV3Prompt, AiSdkV4Prompt } from './ai-sdk-spec.ts';
import { toAiSdkPrompt } from './ai-sdk-write-prompt.ts';

/** Messages numbered as a log would number them. */
export const logged = (messages: readonly MessageInput[]): Message[] =>
  messages.map((message, seq) => ({ ...message, id: `m${seq}`, seq, meta: message.meta ?? {} }));

/** A prompt read into ctxkit and written back for `version`, for the provider `openai` (tests). */
export const through = (prompt: AiSdkV3Prompt | AiSdkV4Prompt, version: AiSdkSpecificationVersion) => {
  const transcript = fromAiSdkPrompt(prompt);
  return toAiSdkPrompt(
    { ...transcript, messages: logged(transcript.messages) },
    { specificationVersion: version, provider: 'openai' },
  );
};
