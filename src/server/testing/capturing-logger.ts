import { Writable } from 'node:stream';
import pino from 'pino';

/** A pino logger whose lines (JSON, one per entry) are kept in `lines`, for a test to read. */
export function capturingLogger(): { logger: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = pino(
    { base: undefined },
    new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    }),
  );
  return { logger, lines };
}
