/**
 * A model call's body, read and parsed as the proxy's routes take it: bounded, then JSON in slices (see
 * `parseJsonInSlices`), nested no deeper than `MAX_JSON_DEPTH`. A refusal is the status and message the
 * client gets.
 */
import { parseJsonInSlices } from './parse-json-in-slices.ts';
import { BodyTooLargeError, MAX_JSON_DEPTH, readBoundedText } from './read-body.ts';

export type JsonBody =
  /** `text`: the body as it came, for a route that passes it on. */
  | { ok: true; body: unknown; text: string }
  | { ok: false; status: 400 | 413; message: string; field?: string };

export async function readJsonBody(request: Request, limit: number): Promise<JsonBody> {
  let text: string;
  try {
    text = await readBoundedText(request, limit);
  } catch (error) {
    if (BodyTooLargeError.isInstance(error)) return { ok: false, status: 413, message: error.message };
    throw error;
  }
  let parsed: Awaited<ReturnType<typeof parseJsonInSlices>>;
  try {
    parsed = await parseJsonInSlices(text);
  } catch (error) {
    return { ok: false, status: 400, message: `the request body is not JSON: ${(error as Error).message}` };
  }
  if ('tooDeep' in parsed)
    return {
      ok: false,
      status: 400,
      message: `${parsed.tooDeep}: nested deeper than ${MAX_JSON_DEPTH} levels`,
      field: parsed.tooDeep,
    };
  return { ok: true, body: parsed.value, text };
}
