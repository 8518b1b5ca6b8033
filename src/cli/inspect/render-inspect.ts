import pc from 'picocolors';
import { escapeForTerminal as safe } from '../../core/escape-for-terminal.ts';
import type { TokenFigures, TranscriptReport } from './inspect-transcript.ts';

const number = (value: number) => value.toLocaleString('en-US');
const percent = (value: number) => `${(value * 100).toFixed(1)}%`;

/** How the window line says where the window came from (a window that was set says nothing). */
const WINDOW_SOURCES = {
  explicit: '',
  profile: ' from the model profile',
  'max-output': ' = 4 × max output',
} as const;

/** A right-aligned plain table; widths from the content. */
export function table(rows: string[][], header?: string[]): string {
  const all = header ? [header, ...rows] : rows;
  const widths = all[0]?.map((_, column) => Math.max(...all.map((row) => (row[column] ?? '').length))) ?? [];
  const line = (row: string[]) =>
    row
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0),
      )
      .join('  ');
  const out = all.map(line);
  if (header) out.splice(1, 0, widths.map((width) => '─'.repeat(width)).join('  '));
  return out.map((row) => `  ${row}`).join('\n');
}

/** The report as text; every name and line from the session is escaped for the terminal. */
export function renderInspect(report: TranscriptReport): string {
  const { exact, heuristic, fit } = report;
  const lines: string[] = [];
  lines.push(pc.bold(safe(report.file)), `  format ${safe(report.format)}`);
  lines.push(
    `  messages ${number(report.messages)} (system ${report.roles.system}, user ${report.roles.user}, assistant ${report.roles.assistant}, tool ${report.roles.tool}${report.archivedResults > 0 ? `, ${report.archivedResults} archived` : ''}) · turns ${report.turns} · tool calls ${report.toolCalls} · chars ${number(report.chars)}`,
  );
  if (report.unansweredCalls > 0 || report.orphanResults > 0) {
    lines.push(
      pc.yellow(
        `  tool pairing: ${report.unansweredCalls} call(s) never answered, ${report.orphanResults} result(s) without a call (ctxkit's views repair both)`,
      ),
    );
  }
  const topTools = Object.entries(report.toolCallsByName)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 6)
    .map(([name, count]) => `${safe(name)} ${count}`)
    .join(', ');
  if (topTools) lines.push(`  tools: ${topTools}`);
  lines.push('');
  const categories: [string, keyof TokenFigures['messages'] | 'system'][] = [
    ['system', 'system'],
    ['text', 'text'],
    ['reasoning', 'reasoning'],
    ['tool calls', 'toolCalls'],
    ['tool results', 'toolResults'],
    ['media', 'media'],
    ['framing', 'overhead'],
  ];
  const value = (figures: TokenFigures, key: keyof TokenFigures['messages'] | 'system') =>
    key === 'system' ? figures.system : figures.messages[key];
  lines.push(
    table(
      [
        ...categories.map(([label, key]) => [
          label,
          number(value(exact, key)),
          number(value(heuristic, key)),
        ]),
        [pc.bold('total'), pc.bold(number(exact.total)), pc.bold(number(heuristic.total))],
      ],
      ['tokens', `exact ${safe(exact.encoding)}`, `chars/${heuristic.charsPerToken}`],
    ),
  );
  if (report.largestResults.length > 0) {
    lines.push('', '  largest tool results');
    lines.push(
      table(
        report.largestResults.map((result) => [
          `#${result.seq} ${safe(result.tool)}${result.archived ? ' (archived)' : ''}`,
          `${number(result.chars)} chars`,
          `${number(result.tokens)} tok`,
          firstChars(result.firstLine, 50),
        ]),
      ),
    );
  }
  const usable = fit.contextWindow - fit.maxOutputTokens;
  const verdict = fit.fits ? pc.green('fits') : pc.red('does not fit');
  lines.push(
    '',
    `  ${verdict} ${fit.model !== undefined ? safe(fit.model) : 'the model'}: ${number(exact.total)} of ${number(usable)} input tokens (window ${number(fit.contextWindow)}${WINDOW_SOURCES[fit.windowSource ?? 'explicit']} − output ${number(fit.maxOutputTokens)}), pressure ${percent(fit.pressure)}`,
  );
  const thresholds: string[] = [];
  if (fit.clearsAt)
    thresholds.push(
      `clears old results at ${percent(fit.clearsAt.pressure)} (${number(fit.clearsAt.tokens)} tok)`,
    );
  if (fit.compactsAt)
    thresholds.push(`compacts at ${percent(fit.compactsAt.pressure)} (${number(fit.compactsAt.tokens)} tok)`);
  if (thresholds.length > 0) lines.push(`  the policy ${thresholds.join(', ')}`);
  return lines.join('\n');
}

/** The first `max` characters of a line, escaped; `…` when cut. Cut by code point, never mid-pair. */
function firstChars(line: string, max: number): string {
  const chars = [...line];
  return safe(chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : line);
}
