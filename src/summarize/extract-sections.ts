import { type Message, type ToolCallPart, textOf } from '../core/message.ts';
import { forEachInSlices, WorkSlices } from '../core/work-slices.ts';
import { cutHead, cutHeadTail, oneLine } from './cut-text.ts';
import { decisionSentences } from './extract-decisions.ts';
import { firstErrorLine } from './extract-errors.ts';
import { pathsInArgs, pathsInCommand, pathsInText } from './extract-file-paths.ts';
import { checkboxItems, numberedPlanItems, planItemKey, todoArgItems } from './extract-plan-items.ts';
import { FileLedger } from './file-ledger.ts';
import { RecencyList } from './recency-list.ts';
import {
  DEFAULT_MAX_ITEMS_PER_SECTION,
  emptySections,
  itemKey,
  SECTION_ITEM_MAX_CHARS,
  type SummarySections,
} from './summary-sections.ts';
import {
  fileActionOf,
  isShellTool,
  isTodoTool,
  parseToolArgs,
  stringArg,
  type ToolArgs,
} from './tool-args.ts';

export interface ExtractOptions {
  /** Tool results are cut (head + tail) to this many runes before anything is read from them. */
  toolResultMaxChars: number;
  maxItemsPerSection?: number;
}

/** Messages ctxkit (or an earlier compaction) wrote itself: digests, reminders, summaries are not the user. */
const SYNTHETIC_KINDS: ReadonlySet<string> = new Set(['summary', 'tool_summary', 'reminder', 'system_note']);
/**
 * Summaries that other agents injected as plain user text (pi's `[compaction summary]`, tiancai's
 * `[Previous conversation summary]`, `[Compaction tool digest]`): not requests.
 */
const SYNTHETIC_PREFIX =
  /^\s*\[(?:[\w ]*summary|compaction[\w ]*|previous conversation[\w ]*|context[\w ]*)\]/i;
/** Tools that act on a file given by name; when their arguments name none, the result's header does. */
const FILE_TOOL = /edit|write|create|open|insert|replace|patch|view|read/i;
/** Commands whose non-zero exit is an answer ("no match", "differs"), not a failure. */
const EXIT_ONE_IS_AN_ANSWER = /^(?:grep|egrep|fgrep|rg|ag|diff|cmp|test|\[)\s/;
/** The state is the newest assistant text at least this long: a closing "👍" says nothing about the work. */
export const MIN_STATE_CHARS = 40;
/** Lines of a file tool's result searched for the path it acted on (`[File: /testbed/app.py (10 lines)]`). */
const RESULT_HEADER_LINES = 5;

interface CallInfo {
  name: string;
  args: ToolArgs | undefined;
  command: string | undefined;
  namedPaths: number;
}

/**
 * Reads every section's items out of a message list in one pass. Pure and deterministic: the same
 * messages give the same sections, item for item.
 */
export function extractSections(messages: readonly Message[], options: ExtractOptions): SummarySections {
  const extractor = new SectionExtractor(options);
  for (const message of messages) extractor.add(message);
  return extractor.sections();
}

/**
 * `extractSections` in slices, the event loop getting turns between them: an extractive summary of a
 * client's history of hundreds of thousands of messages reads every one. The same sections.
 */
export async function extractSectionsInSlices(
  messages: readonly Message[],
  options: ExtractOptions,
  slices: WorkSlices = new WorkSlices(),
): Promise<SummarySections> {
  const extractor = new SectionExtractor(options);
  await forEachInSlices(messages, (message) => extractor.add(message), slices);
  return extractor.sections();
}

/** The one pass of `extractSections`, a message at a time. */
class SectionExtractor {
  readonly #options: ExtractOptions;
  readonly #limit: number;
  readonly #requests = new RecencyList(itemKey);
  readonly #decisions = new RecencyList(itemKey);
  readonly #commands = new RecencyList(itemKey);
  readonly #errors = new RecencyList(itemKey);
  readonly #plan = new Map<string, string>();
  readonly #files = new FileLedger();
  readonly #calls = new Map<string, CallInfo>();
  #intent: string | undefined;
  #lastText: string | undefined;
  #lastShortText: string | undefined;
  #lastActionAfterText: string | undefined;

  constructor(options: ExtractOptions) {
    this.#options = options;
    this.#limit = options.maxItemsPerSection ?? DEFAULT_MAX_ITEMS_PER_SECTION;
  }

  #addPlan(items: readonly string[]): void {
    // A plan item keeps its first place (step order) and takes its newest status.
    for (const item of items) this.#plan.set(planItemKey(item), item);
  }

  add(message: Message): void {
    const kind = message.meta.kind ?? 'message';
    if (SYNTHETIC_KINDS.has(kind)) return;
    const files = this.#files;

    if (message.role === 'user') {
      const text = normalizeNewlines(textOf(message)).trim();
      if (!text || SYNTHETIC_PREFIX.test(text)) return;
      if (this.#intent === undefined) this.#intent = cutHead(oneLine(text), SECTION_ITEM_MAX_CHARS.intent);
      else this.#requests.add(cutHead(oneLine(text), SECTION_ITEM_MAX_CHARS.requests));
      this.#addPlan(checkboxItems(text));
      for (const path of pathsInText(text)) files.add(path, 'mentioned');
      return;
    }

    if (message.role === 'assistant') {
      const text = normalizeNewlines(textOf(message)).trim();
      if (text) {
        if (text.length >= MIN_STATE_CHARS) {
          this.#lastText = text;
          this.#lastShortText = undefined;
        } else {
          this.#lastShortText = text;
        }
        this.#lastActionAfterText = undefined;
        this.#decisions.addAll(decisionSentences(text));
        this.#addPlan(checkboxItems(text));
        this.#addPlan(numberedPlanItems(text));
        for (const path of pathsInText(text)) files.add(path, 'mentioned');
      }
      for (const part of message.parts) {
        if (part.type !== 'tool-call') continue;
        const call = readCall(part);
        this.#calls.set(part.callId, call);
        this.#lastActionAfterText = describeCall(call);
        if (call.command !== undefined) {
          this.#commands.add(commandItem(call.command));
          for (const { path, action } of pathsInCommand(call.command)) files.add(path, action);
        } else if (isTodoTool(call.name)) {
          this.#addPlan(todoArgItems(call.args));
        } else if (call.args) {
          for (const path of pathsInArgs(call.args)) files.add(path, fileActionOf(call.name, call.args));
        } else {
          for (const path of pathsInText(part.args)) files.add(path, 'mentioned');
        }
      }
      return;
    }

    for (const part of message.parts) {
      if (part.type !== 'tool-result') continue;
      const call = this.#calls.get(part.callId);
      const name = part.name || call?.name || 'tool';
      const content = normalizeNewlines(cutHeadTail(part.content, this.#options.toolResultMaxChars));
      const exitCodeIsError =
        call?.command === undefined || !EXIT_ONE_IS_AN_ANSWER.test(commandItem(call.command));
      const error = firstErrorLine(content, part.isError, { exitCodeIsError });
      if (error !== undefined) {
        const source = call?.command !== undefined ? `$ ${cutHead(commandItem(call.command), 60)}` : name;
        this.#errors.add(`${source} → ${error}`);
      } else if (call && call.namedPaths === 0 && call.command === undefined && FILE_TOOL.test(name)) {
        const header = content.split('\n', RESULT_HEADER_LINES).join('\n');
        for (const path of pathsInText(header)) files.add(path, fileActionOf(name, call.args));
      }
    }
  }

  sections(): SummarySections {
    const limit = this.#limit;
    const sections = emptySections();
    if (this.#intent !== undefined) sections.intent = [this.#intent];
    sections.requests = this.#requests.newest(limit);
    sections.decisions = this.#decisions.newest(limit);
    sections.files = this.#files.items().slice(-limit);
    sections.commands = this.#commands.newest(limit);
    sections.errors = this.#errors.newest(limit);
    sections.plan = [...this.#plan.values()].slice(-limit);
    const stateText = this.#lastText ?? this.#lastShortText;
    if (stateText !== undefined)
      sections.state.push(cutHead(oneLine(stateText), SECTION_ITEM_MAX_CHARS.state));
    if (this.#lastActionAfterText !== undefined)
      sections.state.push(`Last action: ${this.#lastActionAfterText}`);
    return sections;
  }
}

function readCall(part: ToolCallPart): CallInfo {
  const args = parseToolArgs(part.args);
  const shell = isShellTool(part.name);
  // A shell tool whose arguments are not JSON got the command line itself.
  const command = shell
    ? (stringArg(args, 'command', 'cmd', 'script') ?? (args ? undefined : part.args))
    : undefined;
  return {
    name: part.name,
    args,
    command: command?.trim() || undefined,
    namedPaths: pathsInArgs(args).length,
  };
}

function describeCall(call: CallInfo): string {
  if (call.command !== undefined) return `$ ${cutHead(firstLine(call.command), 100)}`;
  const path = pathsInArgs(call.args)[0];
  return path ? `${call.name} ${path}` : call.name;
}

/**
 * A command as listed: its first line (a heredoc or an SWE-agent `edit` block is data, marked with an
 * ellipsis), without a leading `cd <dir> &&`, which agents repeat on every call and which says nothing new.
 */
export function commandItem(command: string): string {
  const first = firstLine(command).replace(/^cd\s+\S+\s*&&\s*/, '');
  const more = command.trim().includes('\n') ? ' …' : '';
  return cutHead(`${first}${more}`, SECTION_ITEM_MAX_CHARS.commands);
}

function firstLine(text: string): string {
  const trimmed = text.trim();
  const end = trimmed.indexOf('\n');
  return (end === -1 ? trimmed : trimmed.slice(0, end)).trim();
}

function normalizeNewlines(text: string): string {
  return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
}
