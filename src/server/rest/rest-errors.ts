/**
 * The REST API's errors: `RestError` for what a route refuses itself, and `errorBody`, the JSON every
 * route answers an error with (`{error: {message, code?, issues?}}`), whatever threw it.
 */
import {
  CtxkitError,
  type ErrorCode,
  InvalidInputError,
  InvalidMessageError,
  InvalidPolicyError,
} from '../../core/errors/index.ts';
import { staleOverrideRefusal } from '../proxy-responses.ts';
import type { RestIssue } from './rest-schemas.ts';

/** A request a route refuses itself, with the status it answers and the fields at fault. */
export class RestError extends CtxkitError {
  static override readonly code: ErrorCode = 'rest_request_refused';
  readonly status: 400 | 401 | 404 | 409 | 413;
  readonly issues: RestIssue[] | undefined;

  constructor(status: 400 | 401 | 404 | 409 | 413, message: string, issues?: RestIssue[]) {
    super('rest_request_refused', message, { status, issues });
    this.status = status;
    this.issues = issues;
  }
}

type ErrorStatus = 400 | 401 | 404 | 409 | 413 | 500;

/** The JSON error every route answers with: `{error: {message, issues?}}`. */
export function errorBody(error: unknown): {
  status: ErrorStatus;
  body: { error: { message: string; code?: string; issues?: RestIssue[] } };
} {
  const stale = staleOverrideRefusal(error);
  if (stale !== undefined)
    return { status: 409, body: { error: { message: stale, code: 'invalid_policy' } } };
  if (RestError.isInstance(error))
    return {
      status: error.status,
      body: { error: { message: error.message, ...(error.issues && { issues: error.issues }) } },
    };
  if (InvalidMessageError.isInstance(error)) return fieldError(error, error.path);
  if (InvalidInputError.isInstance(error)) return fieldError(error, error.field ?? '');
  if (InvalidPolicyError.isInstance(error))
    return {
      status: 400,
      body: { error: { message: error.message, code: error.code, issues: policyIssuesOf(error) } },
    };
  if (CtxkitError.isInstance(error)) {
    if (error.code === 'unknown_model')
      return {
        status: 409,
        body: {
          error: {
            message: `${error.message} (this session has had no model request through the proxy yet)`,
            code: error.code,
          },
        },
      };
    const status: ErrorStatus =
      error.code === 'message_id_conflict' || error.code === 'sequence_conflict'
        ? 409
        : error.code.startsWith('invalid_') || error.code === 'empty_message'
          ? 400
          : 500;
    return { status, body: { error: { message: error.message, code: error.code } } };
  }
  return { status: 500, body: { error: { message: 'ctxkit proxy: internal error (see the server log)' } } };
}

/** A 400 naming the one field the error is about. */
function fieldError(error: CtxkitError, path: string): ReturnType<typeof errorBody> {
  const message = String(error.details.reason ?? error.message);
  return {
    status: 400,
    body: { error: { message: error.message, code: error.code, issues: [{ path, message }] } },
  };
}

function policyIssuesOf(error: InvalidPolicyError): RestIssue[] {
  const listed = error.details.issues;
  if (Array.isArray(listed) && listed.length > 0)
    return listed.map((issue: { key?: unknown; reason?: unknown }) => ({
      path: String(issue.key ?? error.key),
      message: String(issue.reason ?? ''),
    }));
  return [{ path: error.key, message: String(error.details.reason ?? error.message) }];
}
