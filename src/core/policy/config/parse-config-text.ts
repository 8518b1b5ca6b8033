import type { Node } from 'yaml';
import { InvalidInputError } from '../../errors/index.ts';
import { yamlModule } from '../../load-yaml.ts';
import type { PolicyPath } from '../policy-paths.ts';

/**
 * A config file's text as data, plus where each key sits, so an error can name the line. JSON and
 * YAML are both read through the YAML parser for positions (JSON is YAML 1.2 flow); a `.json` file
 * must also be strict JSON. Syntax errors are InvalidInputError with the file and line.
 */

export type ConfigFormat = 'json' | 'yaml';

export interface ParsedConfigText {
  data: unknown;
  format: ConfigFormat;
  /** 1-based line of the key at `path`, or of its nearest ancestor that exists. */
  lineOf: (path: PolicyPath) => number | undefined;
}

export function configFormatOf(fileName: string, text: string): ConfigFormat {
  if (/\.json5?$/i.test(fileName)) return 'json';
  if (/\.ya?ml$/i.test(fileName)) return 'yaml';
  return text.trimStart().startsWith('{') ? 'json' : 'yaml';
}

/** Line of a character offset, from JSON.parse's "at position N" (or "line L column C"). */
function jsonErrorLine(message: string, text: string): number | undefined {
  const lineColumn = /line (\d+) column \d+/.exec(message);
  if (lineColumn?.[1] !== undefined) return Number(lineColumn[1]);
  const position = /position (\d+)/.exec(message);
  if (position?.[1] === undefined) return undefined;
  return text.slice(0, Number(position[1])).split('\n').length;
}

export function parseConfigText(text: string, fileName: string): ParsedConfigText {
  const format = configFormatOf(fileName, text);
  let json: unknown;
  if (format === 'json') {
    // Strict JSON first: its message names the JSON problem, not a YAML one.
    try {
      json = JSON.parse(text);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const line = jsonErrorLine(message, text);
      throw new InvalidInputError(`invalid JSON: ${message}`, {
        file: fileName,
        ...(line !== undefined ? { line } : {}),
      });
    }
  }
  const { isMap, isScalar, isSeq, LineCounter, parseDocument } = yamlModule();
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, uniqueKeys: true });
  const [yamlError] = document.errors;
  if (yamlError !== undefined) {
    const line = yamlError.linePos?.[0]?.line;
    const reason = (yamlError.message.split('\n')[0] ?? yamlError.message).replace(
      / at line \d+, column \d+:?$/,
      '',
    );
    throw new InvalidInputError(`invalid ${format === 'json' ? 'JSON' : 'YAML'}: ${reason}`, {
      file: fileName,
      ...(line !== undefined ? { line } : {}),
    });
  }
  const data: unknown = format === 'json' ? json : document.toJS({ maxAliasCount: 100 });

  const lineOf = (path: PolicyPath): number | undefined => {
    let node: unknown = document.contents;
    let line: number | undefined;
    for (const segment of path) {
      if (typeof segment === 'number' && isSeq(node)) {
        const item: unknown = node.items[segment];
        if (item === undefined) break;
        node = item;
        const start = (item as Node).range?.[0];
        if (start !== undefined) line = lineCounter.linePos(start).line;
        continue;
      }
      if (!isMap(node)) break;
      const pair = node.items.find(
        (candidate) => isScalar(candidate.key) && String(candidate.key.value) === String(segment),
      );
      if (pair === undefined) break;
      const start = (pair.key as Node).range?.[0];
      if (start !== undefined) line = lineCounter.linePos(start).line;
      node = pair.value;
    }
    return line;
  };

  return { data: data ?? {}, format, lineOf };
}
