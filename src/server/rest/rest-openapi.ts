/**
 * `GET /openapi.json`: an OpenAPI 3.1 document of the REST API, its request bodies generated from the
 * zod schemas the routes validate with (`z.toJSONSchema`, JSON Schema 2020-12 as OpenAPI 3.1 uses).
 */
import { z } from 'zod';
import { appendBody, compactBody, countBody, createSessionBody, policyPatchBody } from './rest-schemas.ts';

type JsonObject = Record<string, unknown>;

const schemaOf = (schema: z.ZodType): JsonObject => {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input' });
  return rest;
};

const jsonBody = (schema: z.ZodType, required = true): JsonObject => ({
  required,
  content: { 'application/json': { schema: schemaOf(schema) } },
});

const errorSchema: JsonObject = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['message'],
      properties: {
        message: { type: 'string' },
        code: { type: 'string' },
        issues: {
          type: 'array',
          items: {
            type: 'object',
            required: ['path', 'message'],
            properties: { path: { type: 'string' }, message: { type: 'string' } },
          },
        },
      },
    },
  },
};

const errorResponse = (description: string): JsonObject => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

const ok = (description: string, contentType = 'application/json'): JsonObject => ({
  description,
  content: { [contentType]: { schema: contentType === 'application/json' ? { type: 'object' } : {} } },
});

const sessionErrors = {
  '400': errorResponse('The body or the session id is not valid: each bad field is listed'),
  '401': errorResponse('No valid token'),
  '404': errorResponse("No such session of the caller's"),
};

const idParameter: JsonObject = {
  name: 'id',
  in: 'path',
  required: true,
  schema: { type: 'string', maxLength: 200 },
};

/** Every route of the REST API: method, path, summary. */
export const REST_ROUTES = [
  ['post', '/api/sessions'],
  ['get', '/api/sessions'],
  ['get', '/api/sessions/{id}'],
  ['delete', '/api/sessions/{id}'],
  ['post', '/api/sessions/{id}/messages'],
  ['get', '/api/sessions/{id}/context'],
  ['delete', '/api/sessions/{id}/context'],
  ['post', '/api/sessions/{id}/compact'],
  ['get', '/api/sessions/{id}/policy'],
  ['patch', '/api/sessions/{id}/policy'],
  ['delete', '/api/sessions/{id}/policy'],
  ['post', '/api/sessions/{id}/count'],
  ['get', '/api/sessions/{id}/export'],
] as const;

export function buildOpenApiDocument(): JsonObject {
  const session = (operation: JsonObject): JsonObject => ({
    parameters: [idParameter],
    ...operation,
    responses: { ...sessionErrors, ...(operation.responses as JsonObject) },
  });
  return {
    openapi: '3.1.0',
    info: {
      title: 'ctxkit proxy REST API',
      version: '1',
      description:
        "The proxy's sessions, scoped to the caller's token (or, without tokens, its API key). Messages are ctxkit's own form.",
    },
    components: {
      schemas: { Error: errorSchema },
      securitySchemes: {
        token: { type: 'apiKey', in: 'header', name: 'x-ctxkit-token' },
        bearer: { type: 'http', scheme: 'bearer' },
      },
    },
    security: [{ token: [] }, { bearer: [] }, {}],
    paths: {
      '/api/sessions': {
        post: {
          operationId: 'createSession',
          summary: 'Create an empty session (id `s_…` generated when absent)',
          requestBody: jsonBody(createSessionBody, false),
          responses: {
            '201': ok('The session'),
            '400': sessionErrors['400'],
            '401': sessionErrors['401'],
            '409': errorResponse('A session with that id exists'),
          },
        },
        get: {
          operationId: 'listSessions',
          summary: "The caller's sessions",
          responses: { '200': ok('`{sessions: [{id, messages, edits, createdAt, updatedAt}]}`') },
        },
      },
      '/api/sessions/{id}': {
        get: session({
          operationId: 'getSession',
          summary: 'A session',
          responses: { '200': ok('The session') },
        }),
        delete: session({
          operationId: 'deleteSession',
          summary: 'Delete a session, its blobs and its trace events',
          responses: { '200': ok('What was removed') },
        }),
      },
      '/api/sessions/{id}/messages': {
        post: session({
          operationId: 'appendMessages',
          summary: 'Append messages to the session log',
          requestBody: jsonBody(appendBody),
          responses: { '201': ok('The messages as stored, and the events') },
        }),
      },
      '/api/sessions/{id}/context': {
        get: session({
          operationId: 'getContext',
          summary: 'What the model sees: the view and the statistics of the next request',
          responses: { '200': ok('`{stats, view: {messages, summary, reminder}}`') },
        }),
        delete: session({
          operationId: 'clearContext',
          summary: 'Start the context afresh (the log keeps everything)',
          responses: { '200': ok('The events') },
        }),
      },
      '/api/sessions/{id}/compact': {
        post: session({
          operationId: 'compact',
          summary: 'Compact now: emergency (no model call) or summarize (with instructions)',
          requestBody: jsonBody(compactBody),
          responses: { '200': ok('`{compacted, events}`') },
        }),
      },
      '/api/sessions/{id}/policy': {
        get: session({
          operationId: 'getPolicy',
          summary: "The session's policy override and the policy it runs under (the manager's, overridden)",
          responses: { '200': ok('`{id, override, policy}`') },
        }),
        patch: session({
          operationId: 'patchPolicy',
          summary:
            "Change the session's policy override by a JSON merge patch (null removes a key); every bad key is listed with its path",
          requestBody: {
            required: true,
            content: {
              'application/merge-patch+json': { schema: schemaOf(policyPatchBody) },
              'application/json': { schema: schemaOf(policyPatchBody) },
            },
          },
          responses: { '200': ok('`{id, override, policy}`') },
        }),
        delete: session({
          operationId: 'deletePolicy',
          summary:
            "Remove the session's policy override (whatever it holds, one that no longer reads too): the session runs under the server's policy",
          responses: { '200': ok('`{id, override, policy}`') },
        }),
      },
      '/api/sessions/{id}/count': {
        post: session({
          operationId: 'countTokens',
          summary: 'Tokens a request would have before ctxkit and after (o200k), storing nothing',
          requestBody: jsonBody(countBody, false),
          responses: { '200': ok('`{before, after, saved, breakdown}`') },
        }),
      },
      '/api/sessions/{id}/export': {
        get: session({
          operationId: 'exportSession',
          summary: 'JSONL: one line per log message, edit and trace event, each with its `kind`',
          responses: { '200': ok('JSON lines', 'application/x-ndjson') },
        }),
      },
    },
  };
}
