import { loadTranscripts } from '../../adapters/load-transcript.ts';
import { NoSessionsError } from '../../core/errors/index.ts';
import { escapeForTerminal, stringifyForTerminal } from '../../core/escape-for-terminal.ts';
import { createExactCounter } from '../../core/tokens/exact-counter.ts';
import { createHeuristicCounter } from '../../core/tokens/heuristic-counter.ts';
import { findModelProfile } from '../../providers/model-profiles.ts';
import { resolveContextWindow } from '../../providers/resolve-context-window.ts';
import { loadConfigFromFlags, type PolicyFlags } from '../policy-flags.ts';
import { createProgress } from '../progress.ts';
import { inspectTranscript, type TranscriptReport } from './inspect-transcript.ts';
import { renderInspect } from './render-inspect.ts';

/** The model inspect assumes when neither flags nor config name one. */
export const DEFAULT_INSPECT_MODEL = 'gpt-4o';

export interface InspectFlags extends PolicyFlags {
  json?: boolean;
}

/** `ctxkit inspect`: loads sessions in any supported format and reports what they would cost a model. */
export async function inspectCommand(paths: string[], flags: InspectFlags): Promise<void> {
  const config = await loadConfigFromFlags(flags);
  const policy = config.policy;
  const model = policy.model ?? DEFAULT_INSPECT_MODEL;
  const window = resolveContextWindow({
    model,
    contextWindow: policy.budget.contextWindow,
    maxOutputTokens: policy.budget.maxOutputTokens,
    detectWindow: policy.budget.detectWindow,
  });
  const encoding =
    policy.tokens.encoding ?? (model ? findModelProfile(model)?.encoding : undefined) ?? 'o200k';
  const settings = {
    policy,
    exact: createExactCounter(encoding),
    exactEncoding: encoding,
    heuristic: createHeuristicCounter(policy.tokens.charsPerToken),
    model,
    contextWindow: window.contextWindow,
    windowSource: window.windowSource,
    maxOutputTokens: window.maxOutputTokens,
  };
  const loaded = [];
  for (const path of paths) {
    const found = await loadTranscripts(path, {
      onSkip: (file, reason) => process.stderr.write(`skipped ${escapeForTerminal(`${file}: ${reason}`)}\n`),
    });
    if (found.length === 0) throw new NoSessionsError(path);
    loaded.push(...found);
  }
  const progress = createProgress('inspecting', loaded.length);
  const reports: TranscriptReport[] = [];
  for (const entry of loaded) {
    reports.push(inspectTranscript(entry.file, entry.format, entry.transcript, settings));
    progress.tick();
  }
  progress.done();
  if (flags.json) {
    process.stdout.write(`${stringifyForTerminal(reports)}\n`);
    return;
  }
  process.stdout.write(`${reports.map(renderInspect).join('\n\n')}\n`);
  if (reports.length > 1) {
    const over = reports.filter((report) => !report.fit.fits).length;
    const total = reports.reduce((sum, report) => sum + report.exact.total, 0);
    process.stdout.write(
      `\n${reports.length} sessions · ${total.toLocaleString('en-US')} tokens in all · ${over} would not fit ${escapeForTerminal(model)} without compaction\n`,
    );
  }
}
