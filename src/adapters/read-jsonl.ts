/** Splits JSONL text into parsed values with their 1-based line numbers. Blank lines are skipped. */

import { InvalidInputError } from '../core/errors/index.ts';
import { escapeForTerminal } from '../core/escape-for-terminal.ts';
import type { SourceItem } from './source-item.ts';

export function readJsonl(text: string, file?: string): SourceItem[] {
  const items: SourceItem[] = [];
  const lines = stripBom(text).split('\n');
  for (let index = 0; index < lines.length; index += 1) {
    const raw = lines[index] ?? '';
    if (raw.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      throw new InvalidInputError(`not valid JSON: ${parseProblem(error, 'column')}`, {
        ...(file !== undefined && { file }),
        line: index + 1,
      });
    }
    items.push({ value, line: index + 1, field: '' });
  }
  if (items.length === 0)
    throw new InvalidInputError('empty file: no JSON lines', file !== undefined ? { file } : {});
  return items;
}

/** Parses a whole JSON document; a syntax error names the line where the parser stopped. */
export function readJson(text: string, file?: string): unknown {
  const body = stripBom(text);
  if (body.trim() === '') throw new InvalidInputError('empty file', file !== undefined ? { file } : {});
  try {
    return JSON.parse(body);
  } catch (error) {
    const message = (error as Error).message;
    const position = /position (\d+)/.exec(message)?.[1];
    const line = position === undefined ? undefined : lineAt(body, Number(position));
    throw new InvalidInputError(`not valid JSON: ${parseProblem(error, 'position')}`, {
      ...(file !== undefined && { file }),
      ...(line !== undefined && { line }),
    });
  }
}

/**
 * The parser's complaint, safe to show: V8 quotes the input around the problem (`Unexpected token
 * '\x1b', "\x1b[2J…" is not valid JSON`), so every control and invisible character in it is
 * escaped. Within one JSONL line, `in JSON at position 7` reads `at column 8`.
 */
function parseProblem(error: unknown, where: 'column' | 'position'): string {
  const message = error instanceof Error ? error.message : String(error);
  const located =
    where === 'column'
      ? message.replace(
          / in JSON at position (\d+)(?: \(line \d+ column \d+\))?$/,
          (_, at: string) => ` at column ${Number(at) + 1}`,
        )
      : message;
  return escapeForTerminal(located);
}

export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (
    let index = text.indexOf('\n');
    index !== -1 && index < offset;
    index = text.indexOf('\n', index + 1)
  ) {
    line += 1;
  }
  return line;
}
