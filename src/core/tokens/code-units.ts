/** Texts up to this many UTF-16 units are copied into one buffer kept for the next; longer, into their own. */
const SCRATCH_MAX_UNITS = 1 << 20;
/**
 * `utf16le` bytes read as the machine's own 16-bit units only where the machine is little-endian, and
 * where Node's Buffer is there to write them; elsewhere the units are copied one by one.
 */
const NATIVE_COPY =
  new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 && typeof globalThis.Buffer === 'function';
let scratch = new Uint16Array(1 << 12);
let scratchBytes = NATIVE_COPY ? Buffer.from(scratch.buffer) : undefined;

/**
 * The text's UTF-16 code units as an array: one native copy, lone surrogates kept as they are. The array
 * is a shared buffer, valid until the next call. Reading a string with `charCodeAt` costs as much as the
 * string's representation makes it (a slice or a concatenation goes through its parent on every read),
 * and a scanner that meets all kinds runs at half the speed it has on flat strings; an array reads the
 * same whatever the text was built from.
 */
export function codeUnitsOf(text: string): Uint16Array {
  const n = text.length;
  if (n > SCRATCH_MAX_UNITS || !scratchBytes) {
    const own = new Uint16Array(n);
    if (NATIVE_COPY) Buffer.from(own.buffer).write(text, 'utf16le');
    else for (let i = 0; i < n; i++) own[i] = text.charCodeAt(i);
    return own;
  }
  if (scratch.length < n) {
    let size = scratch.length;
    while (size < n) size *= 2;
    scratch = new Uint16Array(size);
    scratchBytes = Buffer.from(scratch.buffer);
  }
  scratchBytes.write(text, 'utf16le');
  return scratch.subarray(0, n);
}
