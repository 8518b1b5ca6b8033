/**
 * Keys taken out of text and byte streams: every occurrence of a secret, in the forms it takes inside
 * JSON and URLs, becomes `[redacted]`. One Aho–Corasick automaton over the bytes of every form finds them
 * all in a single pass, so the cost is linear in the bytes whatever the number of keys; a stream is
 * redacted chunk by chunk, holding back only a tail that could still begin a key (a key split across two
 * network chunks is caught whole, and an event that ends a chunk is not delayed).
 */

/** What replaces a key: plain ASCII without quotes or backslashes, so JSON around it stays valid. */
export const REDACTED = '[redacted]';

/**
 * Shorter values are not treated as secrets: a placeholder key such as `ollama` or `EMPTY` is also an
 * ordinary word, and replacing it wherever it occurs would mangle answers while protecting nothing. Real
 * API keys and ctxkit's tokens (16 characters at least) are far longer.
 */
export const MIN_SECRET_LENGTH = 8;

export interface Redactor {
  /** Whether any secret is known: when not, every method returns its input. */
  readonly active: boolean;
  text(text: string): string;
  /** A redactor for one stream of bytes, fed in order. */
  stream(): StreamRedactor;
}

export interface StreamRedactor {
  /** The chunk's bytes that can no longer be part of a key, redacted (possibly empty). */
  push(chunk: Uint8Array): Uint8Array;
  /** The stream ended: what was held back, redacted. */
  end(): Uint8Array;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const MARKER = encoder.encode(REDACTED);
const EMPTY = new Uint8Array(0);

export function createRedactor(secrets: Iterable<string | undefined>): Redactor {
  const patterns: Uint8Array[] = [];
  for (const secret of new Set(secrets)) {
    if (secret === undefined || secret.length < MIN_SECRET_LENGTH) continue;
    for (const form of secretForms(secret)) patterns.push(...byteForms(form));
  }
  if (patterns.length === 0)
    return {
      active: false,
      text: (text) => text,
      stream: () => ({ push: (chunk) => chunk, end: () => EMPTY }),
    };
  const automaton = new KeyAutomaton(patterns);
  const stream = () => new AutomatonStream(automaton);
  return {
    active: true,
    text(text) {
      // Most texts (header values, log fields) hold no key: an ASCII text is walked as its own bytes,
      // and given back as it is when no key ends anywhere in it.
      if (automaton.absentFromAscii(text)) return text;
      const redactor = stream();
      const head = redactor.push(encoder.encode(text));
      const tail = redactor.end();
      return decoder.decode(concat([head, tail], head.length + tail.length));
    },
    stream,
  };
}

/**
 * A secret as it may appear in what an upstream writes: as sent; escaped inside a JSON string (quotes,
 * backslashes, controls; non-ASCII as `\uXXXX` the way ASCII-only encoders write it; `/` as `\/`);
 * URL-encoded (either case of hex), as in an echoed query string; and lowercased, as a header's name is.
 */
export function secretForms(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  const asciiJson = json.replace(
    /[\u0080-\uffff]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  const forms = new Set([
    secret,
    secret.toLowerCase(),
    json,
    asciiJson,
    json.replaceAll('/', '\\/'),
    asciiJson.replaceAll('/', '\\/'),
  ]);
  try {
    const url = encodeURIComponent(secret);
    forms.add(url);
    forms.add(url.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()));
  } catch {
    // A lone surrogate has no URL form (and no header can carry one).
  }
  return [...forms];
}

/** A form's bytes in UTF-8, and as Latin-1 too when it differs: header values reach us decoded as Latin-1. */
function byteForms(form: string): Uint8Array[] {
  const utf8 = encoder.encode(form);
  if (utf8.length === form.length) return [utf8];
  const latin1 = new Uint8Array(form.length);
  for (let index = 0; index < form.length; index++) {
    const code = form.charCodeAt(index);
    if (code > 0xff) return [utf8];
    latin1[index] = code;
  }
  return [utf8, latin1];
}

/**
 * The automaton: a trie of the patterns with failure links. State 0 is the root; a state's depth is the
 * length of the pattern prefix it stands for, and `longest` the longest pattern ending there.
 */
class KeyAutomaton {
  /** The root's transitions, one per byte (most bytes of a text are read from the root). */
  readonly #root = new Int32Array(256);
  readonly #next: Map<number, number>[] = [new Map()];
  readonly #fail: Int32Array;
  readonly depth: Int32Array;
  readonly longest: Int32Array;

  constructor(patterns: readonly Uint8Array[]) {
    const depth = [0];
    const own = [0];
    for (const pattern of patterns) {
      let state = 0;
      for (const byte of pattern) {
        const transitions = this.#next[state] as Map<number, number>;
        let to = transitions.get(byte);
        if (to === undefined) {
          to = this.#next.length;
          this.#next.push(new Map());
          depth.push((depth[state] ?? 0) + 1);
          own.push(0);
          transitions.set(byte, to);
        }
        state = to;
      }
      own[state] = pattern.length;
    }
    const count = this.#next.length;
    this.#fail = new Int32Array(count);
    this.depth = Int32Array.from(depth);
    this.longest = Int32Array.from(own);
    // Breadth first: a state's failure link is shallower than it, so it is complete when the state is read.
    const queue: number[] = [];
    for (const [byte, to] of this.#next[0] as Map<number, number>) {
      this.#root[byte] = to;
      queue.push(to);
    }
    for (let index = 0; index < queue.length; index++) {
      const state = queue[index] as number;
      for (const [byte, to] of this.#next[state] as Map<number, number>) {
        const fail = this.step(this.#fail[state] ?? 0, byte);
        this.#fail[to] = fail;
        this.longest[to] = Math.max(this.longest[to] ?? 0, this.longest[fail] ?? 0);
        queue.push(to);
      }
    }
  }

  /** True when `text` is ASCII (its UTF-8 bytes are its char codes) and no pattern occurs in it. */
  absentFromAscii(text: string): boolean {
    let state = 0;
    for (let index = 0; index < text.length; index++) {
      const code = text.charCodeAt(index);
      if (code > 0x7f) return false;
      state = this.step(state, code);
      if ((this.longest[state] ?? 0) > 0) return false;
    }
    return true;
  }

  step(from: number, byte: number): number {
    let state = from;
    for (;;) {
      if (state === 0) return this.#root[byte] ?? 0;
      const to = (this.#next[state] as Map<number, number>).get(byte);
      if (to !== undefined) return to;
      state = this.#fail[state] ?? 0;
    }
  }
}

/**
 * One stream through the automaton. Positions are counted from the stream's start. Keys found are kept
 * as disjoint intervals (overlapping finds merged: the union of every key is redacted, one marker for
 * each run); bytes are released once no key still to come can start at or before them.
 */
class AutomatonStream implements StreamRedactor {
  readonly #automaton: KeyAutomaton;
  #state = 0;
  /** Bytes read so far. */
  #position = 0;
  /** Bytes released (as themselves or inside a marker) so far. */
  #released = 0;
  /**
   * The end of the last run a marker was released for: a key overlapping or touching it continues that
   * marker, as it would have merged with it had both been found before either was released.
   */
  #coveredUntil = -1;
  /** Chunks holding the bytes from `#released` on, each with the position of its first byte. */
  #pending: { start: number; bytes: Uint8Array }[] = [];
  /** Keys found and not yet released, as [start, end) intervals, disjoint and in order. */
  #found: { start: number; end: number }[] = [];

  constructor(automaton: KeyAutomaton) {
    this.#automaton = automaton;
  }

  push(chunk: Uint8Array): Uint8Array {
    if (chunk.length === 0) return EMPTY;
    const { depth, longest } = this.#automaton;
    this.#pending.push({ start: this.#position, bytes: chunk });
    let state = this.#state;
    for (let index = 0; index < chunk.length; index++) {
      state = this.#automaton.step(state, chunk[index] as number);
      const length = longest[state] ?? 0;
      if (length > 0) this.#note(this.#position + index + 1 - length, this.#position + index + 1);
    }
    this.#state = state;
    this.#position += chunk.length;
    // A key still to come starts within the bytes the state stands for (the longest tail that begins a
    // key): everything before them is final.
    return this.#release(this.#position - (depth[state] ?? 0));
  }

  end(): Uint8Array {
    const out = this.#release(this.#position);
    this.#state = 0;
    return out;
  }

  #note(start: number, end: number): void {
    // Found in order of their ends: a new interval absorbs every earlier one it overlaps or touches.
    let from = start;
    for (let last = this.#found.at(-1); last !== undefined && last.end >= start; last = this.#found.at(-1)) {
      from = Math.min(from, last.start);
      this.#found.pop();
    }
    this.#found.push({ start: from, end });
  }

  /** Releases every byte before `until`, and every key that starts there or before (its bytes are known). */
  #release(until: number): Uint8Array {
    const parts: Uint8Array[] = [];
    let size = 0;
    // The ranges taken only move forward: the chunk they start in is searched from the last one on.
    let chunk = 0;
    const take = (from: number, to: number) => {
      for (; chunk < this.#pending.length; chunk++) {
        const { start, bytes } = this.#pending[chunk] as { start: number; bytes: Uint8Array };
        const a = Math.max(from, start);
        const b = Math.min(to, start + bytes.length);
        if (a < b) {
          parts.push(bytes.subarray(a - start, b - start));
          size += b - a;
        }
        if (start + bytes.length >= to) break;
      }
    };
    let released = this.#released;
    let kept = 0;
    for (const interval of this.#found) {
      if (interval.start > until) break;
      if (interval.start > released) take(released, interval.start);
      // A key overlapping one already replaced extends that marker instead of adding another.
      if (interval.start > this.#coveredUntil) {
        parts.push(MARKER);
        size += MARKER.length;
      }
      this.#coveredUntil = Math.max(this.#coveredUntil, interval.end);
      released = Math.max(released, interval.end);
      kept++;
    }
    if (kept > 0) this.#found.splice(0, kept);
    if (until > released) {
      take(released, until);
      released = until;
    }
    this.#released = released;
    let drop = 0;
    for (const { start, bytes } of this.#pending) {
      if (start + bytes.length > released) break;
      drop++;
    }
    if (drop > 0) this.#pending.splice(0, drop);
    if (parts.length === 1) return parts[0] as Uint8Array;
    return concat(parts, size);
  }
}

function concat(parts: readonly Uint8Array[], size: number): Uint8Array {
  if (parts.length === 0) return EMPTY;
  const out = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
