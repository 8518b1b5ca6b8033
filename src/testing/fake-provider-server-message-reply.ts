/** A ctxkit assistant message as the fake provider server's reply, in the request's own format. */
import type { Message, Usage } from '../core/message.ts';
import type { ScriptedReply } from './fake-provider-server.ts';
import {
  anthropicReplyFromMessage,
  openAIReplyFromMessage,
  type ReplyFromMessageOptions,
} from './fake-provider-server-replies.ts';
import { streamFormOf } from './fake-provider-server-streams.ts';
import type { HttpReply, RecordedRequest } from './fake-provider-server-types.ts';

/**
 * A reply carrying a ctxkit assistant message, rendered in whichever format the request came in: text,
 * tool calls (same call ids), reasoning (Anthropic thinking with its signature, or a fresh one), usage;
 * streamed (fake-provider-server-streams.ts) when the request asked for a stream.
 */
export function replyFromMessage(
  message: Pick<Message, 'parts'> & { usage?: Usage | undefined },
  options: ReplyFromMessageOptions = {},
): ScriptedReply {
  return (request: RecordedRequest): HttpReply =>
    streamFormOf(
      request,
      request.format === 'anthropic'
        ? anthropicReplyFromMessage(message, options)
        : openAIReplyFromMessage(message, options),
    );
}
