/**
 * The REST API's request bodies as zod schemas: each route validates its body with one, and the OpenAPI
 * document is generated from the same ones (`z.toJSONSchema`), so the two never disagree. Messages are
 * ctxkit's own form (`MessageInput`, core/message.ts); the manager checks them again on append.
 */
import { z } from 'zod';
import { idProblem } from '../../core/session-id.ts';
import { messageMetaSchema, messagePartSchema, usageSchema } from '../../store/session-store-codec.ts';
import { DOT_SEGMENT, MAX_CLIENT_SESSION_ID_LENGTH } from '../resolve-session.ts';

/** A public session id: what `x-ctxkit-session` accepts, so a REST session is reachable from the proxy too. */
export const sessionIdSchema = z
  .string()
  .superRefine((value, context) => {
    const problem =
      idProblem(value, MAX_CLIENT_SESSION_ID_LENGTH) ??
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
      (/[\u0000-\u001f\u007f]/.test(value) ? 'must not contain control characters' : undefined) ??
      (/[^\u0020-\u007e]/.test(value) ? 'must be printable ASCII' : undefined) ??
      (value === '.' || value === '..' ? DOT_SEGMENT : undefined);
    if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
  })
  .meta({ description: 'A session id: printable ASCII, at most 200 characters.' });

export const messageInputSchema = z
  .object({
    id: z.string().min(1).optional(),
    seq: z.number().int().optional(),
    role: z.enum(['user', 'assistant', 'tool']),
    parts: z.array(messagePartSchema),
    meta: messageMetaSchema.optional(),
    usage: usageSchema.optional(),
  })
  .meta({ description: "A message in ctxkit's own form (core/message.ts)." });

const toolDefinitionSchema = z.object({
  name: z.string().min(1),
  description: z.string().optional(),
  parameters: z.record(z.string(), z.unknown()).optional(),
});

export const createSessionBody = z.object({ id: sessionIdSchema.optional() });
export const appendBody = z.object({ messages: z.array(messageInputSchema).min(1) });
export const compactBody = z.object({
  mode: z.enum(['emergency', 'summarize']),
  instructions: z.string().min(1).optional(),
});
export const countBody = z.object({
  system: z.string().optional(),
  tools: z.array(toolDefinitionSchema).optional(),
  messages: z.array(messageInputSchema).optional(),
  model: z.string().min(1).optional(),
});

/**
 * `PATCH …/policy`: a JSON merge patch (RFC 7396) of the session's policy override. Its fields are
 * checked by the policy's own validator once applied (every bad key named with its path), not here: the
 * edge only asks for an object.
 */
export const policyPatchBody = z.record(z.string(), z.unknown()).meta({
  description:
    "A JSON merge patch (RFC 7396) of the session's policy override, in ctxkit's policy names: objects merge, null removes a key, arrays and values replace.",
});

export type RestIssue = { path: string; message: string };

/** `messages[0].parts[1].text` from zod's path. */
export function issuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

export function issuesOf(error: z.ZodError): RestIssue[] {
  return error.issues.map((issue) => ({ path: issuePath(issue.path), message: issue.message }));
}
