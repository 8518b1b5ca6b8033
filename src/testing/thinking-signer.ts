/**
 * Thinking signatures for the fake provider server, checked the way Anthropic checks its own: a
 * `thinking` block's signature is bound to its text, and a `redacted_thinking` block's data is something
 * the server issued. A client (or a proxy) that changes one character of a thinking block, swaps two
 * signatures or invents a block is refused, as the real API refuses it.
 *
 * A signature is `base64(nonce ‖ HMAC-SHA256(secret, "thinking" ‖ nonce ‖ text))`; redacted data is
 * `base64(nonce ‖ HMAC-SHA256(secret, "redacted" ‖ nonce))`. Both are checked from the secret alone, so
 * the server keeps no list, and two servers with one secret accept each other's blocks.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export interface ThinkingSigner {
  /** A signature for this thinking text. */
  sign(thinking: string): string;
  /** Whether `signature` was made by this signer for exactly this text. */
  verify(thinking: string, signature: string): boolean;
  /** Opaque data for a `redacted_thinking` block. */
  redactedData(): string;
  /** Whether this signer issued `data`. */
  issued(data: string): boolean;
}

const NONCE_BYTES = 24;
const MAC_BYTES = 32;

export function createThinkingSigner(secret: string = randomBytes(32).toString('hex')): ThinkingSigner {
  const mac = (kind: string, nonce: Buffer, text = ''): Buffer =>
    createHmac('sha256', secret).update(kind).update(nonce).update(text, 'utf8').digest();
  const sealed = (kind: string, text?: string): string => {
    const nonce = randomBytes(NONCE_BYTES);
    return Buffer.concat([nonce, mac(kind, nonce, text)]).toString('base64');
  };
  const opens = (kind: string, value: string, text?: string): boolean => {
    if (typeof value !== 'string' || !/^[A-Za-z0-9+/]+={0,2}$/.test(value)) return false;
    const bytes = Buffer.from(value, 'base64');
    if (bytes.length !== NONCE_BYTES + MAC_BYTES || bytes.toString('base64') !== value) return false;
    const nonce = bytes.subarray(0, NONCE_BYTES);
    return timingSafeEqual(bytes.subarray(NONCE_BYTES), mac(kind, nonce, text));
  };
  return {
    sign: (thinking) => sealed('thinking', thinking),
    verify: (thinking, signature) => opens('thinking', signature, thinking),
    redactedData: () => sealed('redacted'),
    issued: (data) => opens('redacted', data),
  };
}
