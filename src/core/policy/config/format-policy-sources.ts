import { valueAtPath } from '../../value-at-path.ts';
import { leafPaths } from '../policy-paths.ts';
import type { Policy } from '../policy-schema.ts';

/**
 * The effective policy as a plain-text table, one row per setting: key, value, where it came from.
 * For `ctxkit config`; the CLI decides colours and paging.
 *
 *   key                    value    source
 *   budget.contextWindow   65536    env:CTXKIT_BUDGET__CONTEXT_WINDOW
 *   summarize.trigger      0.8      file:ctxkit.yaml#summarize.trigger
 */

export interface FormatPolicySourcesOptions {
  /** Only rows whose key passes (e.g. only what differs from the preset). */
  filter?: (row: PolicySourceRow) => boolean;
  /** Values longer than this are cut with `…`. Default 60. */
  maxValueWidth?: number;
}

export interface PolicySourceRow {
  key: string;
  value: string;
  source: string;
}

function formatValue(value: unknown): string {
  if (value === undefined) return '(unset)';
  if (typeof value === 'string') return value === '' ? '""' : value;
  return JSON.stringify(value);
}

function sourceOf(key: string, sources: Readonly<Record<string, string>>): string {
  const exact = sources[key];
  if (exact !== undefined) return exact;
  const child = Object.keys(sources).find((path) => path.startsWith(`${key}.`));
  return child === undefined ? '-' : (sources[child] ?? '-');
}

/** The rows, in schema order; an unset optional group (`summarize.model`) is one `(unset)` row. */
export function policySourceRows(
  policy: Policy,
  sources: Readonly<Record<string, string>>,
): PolicySourceRow[] {
  const rows: PolicySourceRow[] = [];
  const seen = new Set<string>();
  for (const path of leafPaths()) {
    // The shallowest unset ancestor stands for the whole group.
    let end = path.length;
    for (let length = 1; length <= path.length; length++) {
      if (valueAtPath(policy, path.slice(0, length)) === undefined) {
        end = length;
        break;
      }
    }
    const key = path.slice(0, end).join('.');
    if (seen.has(key)) continue;
    seen.add(key);
    rows.push({
      key,
      value: formatValue(valueAtPath(policy, path.slice(0, end))),
      source: sourceOf(key, sources),
    });
  }
  return rows;
}

export function formatPolicySources(
  policy: Policy,
  sources: Readonly<Record<string, string>>,
  options: FormatPolicySourcesOptions = {},
): string {
  const width = options.maxValueWidth ?? 60;
  const rows = policySourceRows(policy, sources)
    .filter((row) => options.filter?.(row) ?? true)
    .map((row) => ({
      ...row,
      value: row.value.length > width ? `${row.value.slice(0, width - 1)}…` : row.value,
    }));
  const header: PolicySourceRow = { key: 'key', value: 'value', source: 'source' };
  const all = [header, ...rows];
  const keyWidth = Math.max(...all.map((row) => row.key.length));
  const valueWidth = Math.max(...all.map((row) => row.value.length));
  return all
    .map((row) => `${row.key.padEnd(keyWidth)}  ${row.value.padEnd(valueWidth)}  ${row.source}`.trimEnd())
    .join('\n');
}
