import type { WireFormat } from './wire/wire-format.ts';

/**
 * Why a 200's non-streamed body is not a whole answer in `format` (`json`: the body parsed, undefined when
 * it did not parse); undefined when it is one. A connection closed early ends a body as cleanly as a whole
 * one: only the format's markers tell.
 */
export function incompleteBody(format: WireFormat, body: string, json: unknown): string | undefined {
  return body === '' ? 'an empty body' : format.incompleteAnswer(json);
}

/** What a stream that ended before its format's end marker lacked. */
export function streamCutOff(format: WireFormat): string {
  return `its stream ended before ${format.streamEnd}`;
}
