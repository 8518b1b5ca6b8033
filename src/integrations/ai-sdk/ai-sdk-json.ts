/**
 * JSON as ctxkit reads it from text and keeps AI SDK parts in `meta`: the stores hold JSON only, so a part
 * kept whole (one ctxkit does not model) has its URLs and bytes spelled out, and revived when it is sent.
 */
import { defineMember } from '../../core/define-member.ts';
import { base64Of } from './ai-sdk-file-data.ts';
import type { JSONValue } from './ai-sdk-spec.ts';

/** Text parsed as JSON; undefined when it is not (a wrapper, since `null` is JSON). */
export function parseJson(text: string): { value: JSONValue } | undefined {
  try {
    return { value: JSON.parse(text) as JSONValue };
  } catch {
    return undefined;
  }
}

/** Where a part ctxkit keeps whole holds bytes, they are kept as base64 under this key. */
const BYTES_KEY = '$bytes';

/**
 * A part ctxkit keeps whole, as JSON: a URL as its href, bytes as base64 under {@link BYTES_KEY} (the
 * files of a V4 tool output hold both), `undefined` members dropped.
 */
export function storedPart(part: object): JSONValue {
  return JSON.parse(
    JSON.stringify(part, (_key, member: unknown) =>
      member instanceof Uint8Array ? { [BYTES_KEY]: base64Of(member) } : member,
    ),
  ) as JSONValue;
}

/** A part ctxkit kept whole, as it came: the URLs and bytes of file data restored. */
export function revivedPart(stored: JSONValue): unknown {
  if (Array.isArray(stored)) return stored.map(revivedPart);
  if (stored === null || typeof stored !== 'object') return stored;
  const bytes = stored[BYTES_KEY];
  if (typeof bytes === 'string' && Object.keys(stored).length === 1)
    return new Uint8Array(Buffer.from(bytes, 'base64'));
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(stored))
    if (member !== undefined) defineMember(out, key, revivedPart(member));
  const data = out.data as { type?: unknown; url?: unknown } | undefined;
  if (
    (out.type === 'file' || out.type === 'reasoning-file') &&
    data?.type === 'url' &&
    typeof data.url === 'string'
  )
    out.data = { ...data, url: new URL(data.url) };
  return out;
}
