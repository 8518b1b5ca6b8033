/** A request body read up to a bound: a larger one is refused before it is buffered. */
import { CtxkitError, type ErrorCode } from '../core/errors/index.ts';

/** A request body past its bound: the client gets a 413. */
export class BodyTooLargeError extends CtxkitError {
  static override readonly code: ErrorCode = 'request_body_too_large';
  /** The bound, in bytes. */
  readonly limit: number;

  constructor(limit: number) {
    super('request_body_too_large', `the request body is larger than ${limit} bytes`, { limit });
    this.limit = limit;
  }
}

/**
 * The body as text (UTF-8). Decoded as it arrives, a chunk at a time: 32 MiB decoded at once held the
 * thread for tens of milliseconds.
 */
export async function readBoundedText(request: Request, limit: number): Promise<string> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > limit) throw new BodyTooLargeError(limit);
  if (!request.body) return '';
  const reader = request.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  for (;;) {
    const next = await reader.read();
    if (next.done) break;
    bytes += next.value.byteLength;
    if (bytes > limit) {
      await reader.cancel().catch(() => undefined);
      throw new BodyTooLargeError(limit);
    }
    text += decoder.decode(next.value, { stream: true });
  }
  return text + decoder.decode();
}

/** The body as bytes, exactly as sent (a file upload passed through is not decoded). */
export async function readBoundedBytes(request: Request, limit: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > limit) throw new BodyTooLargeError(limit);
  if (Number.isFinite(declared)) {
    // A declared length is all the connection delivers: read at once (the server's own reading, not a
    // web stream a chunk at a time, which cost as much as the rest of a small call's reading).
    const bytes = new Uint8Array(await request.arrayBuffer());
    if (bytes.byteLength > limit) throw new BodyTooLargeError(limit);
    return bytes;
  }
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const next = await reader.read();
    if (next.done) break;
    bytes += next.value.byteLength;
    if (bytes > limit) {
      await reader.cancel().catch(() => undefined);
      throw new BodyTooLargeError(limit);
    }
    chunks.push(next.value);
  }
  const body = new Uint8Array(bytes);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

/** Deepest nesting a request body may have: real requests (tool schemas included) stay far below it. */
export const MAX_JSON_DEPTH = 128;

/**
 * The path of the first value nested deeper than `maxDepth` (`messages[0].content[0]…`), or undefined.
 * Iterative, so a body nested a million deep is measured without a stack of that depth.
 */
export function pathPastDepth(value: unknown, maxDepth = MAX_JSON_DEPTH): string | undefined {
  const keys = keysPastDepth(value, maxDepth);
  return keys === undefined ? undefined : formatPath(keys);
}

/** The keys (names and indexes) leading to the first value nested deeper than `maxDepth`, or undefined. */
export function keysPastDepth(value: unknown, maxDepth = MAX_JSON_DEPTH): Array<string | number> | undefined {
  interface Node {
    value: unknown;
    depth: number;
    parent: Node | undefined;
    key: string | number | undefined;
  }
  const stack: Node[] = [{ value, depth: 0, parent: undefined, key: undefined }];
  while (stack.length > 0) {
    const node = stack.pop() as Node;
    if (typeof node.value !== 'object' || node.value === null) continue;
    if (node.depth >= maxDepth) return keysOf(node);
    if (Array.isArray(node.value))
      node.value.forEach((child, index) => {
        stack.push({ value: child, depth: node.depth + 1, parent: node, key: index });
      });
    else
      for (const [key, child] of Object.entries(node.value))
        stack.push({ value: child, depth: node.depth + 1, parent: node, key });
  }
  return undefined;

  function keysOf(node: Node): Array<string | number> {
    const keys: Array<string | number> = [];
    for (let at: Node | undefined = node; at?.key !== undefined; at = at.parent) keys.push(at.key);
    return keys.reverse();
  }
}

/** Keys as a path the client wrote: `messages[0].content`. */
export function formatPath(keys: ReadonlyArray<string | number>): string {
  return keys
    .map((key, index) => (typeof key === 'number' ? `[${key}]` : index === 0 ? key : `.${key}`))
    .join('');
}
