/**
 * The package's public types, pinned as `public-api.test.ts` pins its export names: for every code entry
 * of package.json `exports`, API Extractor reads that entry's compiled declarations (`dist/**\/*.d.ts`,
 * rebuilt when stale by the vitest global setup, `src/cli/testing/build-dist-global-setup.ts`) and writes
 * its API report, which must equal the committed one in `api/` (`ctxkit.api.md` for the root,
 * `ctxkit-core.api.md` for `ctxkit/core`, …). A type changed, added or removed fails here, naming the
 * entry and showing the difference.
 *
 * To accept a change on purpose, rewrite the reports and commit them with it:
 *
 *   CTXKIT_ACCEPT_API=1 scripts/with-node.sh npx vitest run src/public-types.test.ts
 *
 * The reports hold every exported declaration with its full type, and the declarations an export refers
 * to that the entry does not export (`includeForgottenExports`: a type reachable only through another is
 * public all the same). API Extractor marks each declaration `// @public`, and one without a doc comment
 * `(undocumented)`, whatever the messages say: documenting such a declaration changes its report too.
 *
 * API Extractor's messages: those about TSDoc conventions ctxkit does not follow are left out (release
 * tags, `ae-missing-release-tag`: nothing is tagged @public or @beta; documentation, `ae-undocumented`,
 * `ae-unresolved-link` and the `tsdoc-*` syntax messages: the doc comments are prose with Markdown, not
 * TSDoc), and so is `ae-forgotten-export` (those declarations are in the report already, without
 * `export`). Any other extractor message is written into the report, where a reviewer sees it. A compiler
 * error, or a file of ctxkit's that is not a declaration file, fails the test: the report would be wrong.
 * API Extractor analyses with the TypeScript it bundles (6.x); it reads the declarations TypeScript 7
 * emits as they are.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CompilerState,
  ConsoleMessageId,
  Extractor,
  ExtractorConfig,
  ExtractorLogLevel,
  type ExtractorMessage,
} from '@microsoft/api-extractor';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pkg from '../package.json' with { type: 'json' };

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const REPORTS = join(ROOT, 'api');
const ACCEPT = process.env.CTXKIT_ACCEPT_API === '1';
const ACCEPT_COMMAND = 'CTXKIT_ACCEPT_API=1 scripts/with-node.sh npx vitest run src/public-types.test.ts';

/** The package's code entries (not `./package.json`), each with the declarations it ships. */
const codeEntries = Object.entries(pkg.exports).flatMap(([entry, target]) =>
  typeof target === 'string'
    ? []
    : [
        {
          entry,
          /** `ctxkit`, `ctxkit/core`: as a user imports it. */
          label: entry === '.' ? 'ctxkit' : `ctxkit/${entry.slice(2)}`,
          /** `ctxkit`, `ctxkit-core`: the report's name, `api/<name>.api.md`. */
          report: entry === '.' ? 'ctxkit' : `ctxkit-${entry.slice(2)}`,
          declarations: join(ROOT, target.types),
        },
      ],
);

/** Compiler options as `tsconfig.json` has them, for reading the declarations (no sources). */
const COMPILER_OPTIONS = {
  target: 'ES2022',
  module: 'NodeNext',
  moduleResolution: 'NodeNext',
  lib: ['ES2023', 'ES2024.String'],
  types: ['node'],
  strict: true,
  skipLibCheck: true,
};

function configFor(entry: (typeof codeEntries)[number], temp: string): ExtractorConfig {
  return ExtractorConfig.prepare({
    configObject: {
      projectFolder: ROOT,
      mainEntryPointFilePath: entry.declarations,
      compiler: {
        overrideTsconfig: {
          compilerOptions: COMPILER_OPTIONS,
          files: codeEntries.map(({ declarations }) => declarations),
        },
      },
      apiReport: {
        enabled: true,
        reportFileName: entry.report,
        reportFolder: REPORTS,
        reportTempFolder: temp,
        includeForgottenExports: true,
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      newlineKind: 'lf',
      messages: {
        compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Error } },
        extractorMessageReporting: {
          default: { logLevel: ExtractorLogLevel.Warning, addToApiReportFile: true },
          'ae-missing-release-tag': { logLevel: ExtractorLogLevel.None },
          'ae-undocumented': { logLevel: ExtractorLogLevel.None },
          'ae-forgotten-export': { logLevel: ExtractorLogLevel.None },
          'ae-unresolved-link': { logLevel: ExtractorLogLevel.None },
          'ae-wrong-input-file-type': { logLevel: ExtractorLogLevel.Error, addToApiReportFile: false },
        },
        tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
      },
    },
    configObjectFullPath: undefined,
    packageJsonFullPath: join(ROOT, 'package.json'),
  });
}

/** API Extractor's own notes on a report being written or differing: the comparison below says it. */
const REPORT_NOTES = new Set<string>([
  ConsoleMessageId.WritingApiReport,
  ConsoleMessageId.ApiReportNotCopied,
  ConsoleMessageId.ApiReportDiff,
  ConsoleMessageId.ApiReportCopied,
  ConsoleMessageId.ApiReportUnchanged,
  ConsoleMessageId.ApiReportCreated,
  ConsoleMessageId.ApiReportFolderMissing,
]);

/**
 * A dependency that ships TypeScript source as its types (`@langchain/protocol`, under LangGraph's): API
 * Extractor reads only declarations, and says so; the types ctxkit uses from it stay imports in the report.
 * For ctxkit's own files, all compiled declarations, the message stays an error.
 */
function isDependencySource(message: ExtractorMessage): boolean {
  return (
    message.messageId === 'ae-wrong-input-file-type' &&
    (message.sourceFilePath ?? '').split(/[\\/]/).includes('node_modules')
  );
}

function readReport(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

describe('the public types', () => {
  let temp: string;
  let configs: Map<string, ExtractorConfig>;
  let compilerState: CompilerState;

  beforeAll(() => {
    temp = mkdtempSync(join(tmpdir(), 'ctxkit-api-'));
    if (ACCEPT) mkdirSync(REPORTS, { recursive: true });
    configs = new Map(codeEntries.map((entry) => [entry.entry, configFor(entry, temp)]));
    // One program over every entry's declarations, shared by the runs.
    const [first] = configs.values();
    if (!first) throw new Error('package.json exports no code entry');
    compilerState = CompilerState.create(first, {
      additionalEntryPoints: codeEntries.map(({ declarations }) => declarations),
    });
  });

  afterAll(() => {
    if (temp) rmSync(temp, { recursive: true, force: true });
  });

  for (const entry of codeEntries) {
    it(`${entry.label} has the types api/${entry.report}.api.md pins`, () => {
      const config = configs.get(entry.entry) as ExtractorConfig;
      const problems: string[] = [];
      const result = Extractor.invoke(config, {
        // A local build writes the report into api/; otherwise it is only compared.
        localBuild: ACCEPT,
        compilerState,
        messageCallback(message: ExtractorMessage) {
          message.handled = true;
          if (REPORT_NOTES.has(message.messageId) || isDependencySource(message)) return;
          if (message.logLevel === ExtractorLogLevel.Error || message.logLevel === ExtractorLogLevel.Warning)
            problems.push(`${message.messageId}: ${message.text} (${message.sourceFilePath ?? ''})`);
        },
      });
      expect(problems, `API Extractor could not read the declarations of ${entry.label}`).toEqual([]);
      if (ACCEPT) return;
      const fileName = config.reportConfigs[0]?.fileName ?? `${entry.report}.api.md`;
      const committed = readReport(join(REPORTS, fileName));
      const fresh = readReport(join(temp, fileName));
      const accept = `if the change is meant, accept it with \`${ACCEPT_COMMAND}\` and commit api/${fileName}`;
      expect(committed, `${entry.label} has no committed api/${fileName}: ${accept}`).toBeDefined();
      expect(fresh, `${entry.label}: the public types changed; ${accept}`).toBe(committed);
      expect(result.apiReportChanged).toBe(false);
    });
  }
});
