/**
 * One `ctxkit chat` conversation: the manager on the embedded stores, the agent's model and tools, and
 * what each line typed does (a message runs a turn; `/…` is a command). The terminal around it (raw
 * keys, Ctrl-C, the prompt) is chat-command.ts's; this file only writes through `ChatOutput`.
 */
import type { AgentEvent } from '../../agent/agent-events.ts';
import type { AgentTool, ConfirmRequest } from '../../agent/agent-tool.ts';
import { type AgentConfig, runTurn } from '../../agent/run-turn.ts';
import { escapeForTerminal } from '../../core/escape-for-terminal.ts';
import type { ContextEvent } from '../../core/events.ts';
import type { Policy } from '../../core/policy/policy-schema.ts';
import type { SkillSource } from '../../core/skills/skill-source.ts';
import { type ContextManager, createContextManager } from '../../engine/context-manager.ts';
import type { EmbeddedStores } from '../../store/open-embedded-stores.ts';
import { saveChatSettings, settingTargets, withSetting } from './chat-settings.ts';
import type { ModelConnection } from './connect-model.ts';
import {
  contextEventLine,
  contextSeed,
  renderContext,
  statusLine,
  toolCallLine,
  toolResultLine,
} from './render-chat.ts';

/** Where the chat writes: the terminal (colours, a status line) or a pipe (plain lines). */
export interface ChatOutput {
  /** Text as it streams, no newline added. */
  write(text: string): void;
  /** A whole line. */
  line(text: string): void;
  colors: Parameters<typeof toolCallLine>[2] & object;
  /** A person is at a terminal: status line after each turn, questions asked. */
  interactive: boolean;
}

export interface ChatSessionOptions {
  sessionId: string;
  stores: EmbeddedStores;
  connection: ModelConnection;
  /** Loads the policy with these extra `key=value` settings (the flags' and the session's own first). */
  loadPolicy: (extraSettings: readonly string[]) => Promise<Policy>;
  /** The agent's skills: their index enters every request, a body when the agent reads it. */
  skills?: SkillSource;
  /** Settings `/config` stored for this session earlier. */
  settings: string[];
  /** The preset the policy comes from: `/context` shows where it departs from its seed. */
  preset?: string;
  contextWindow: number | undefined;
  maxOutputTokens: number | undefined;
  system: string;
  maxSteps: number;
  /** The agent's tools for a manager (the context tools read through it). */
  toolsFor: (manager: ContextManager, config: Omit<AgentConfig, 'tools'>) => AgentTool[];
  confirm: (request: ConfirmRequest) => Promise<boolean>;
  out: ChatOutput;
}

/** Policy paths `/config` leaves to the flags: the chat resolves the window itself. */
const WINDOW_KEYS: ReadonlySet<string> = new Set(['budget.contextWindow', 'budget.maxOutputTokens']);

export const CHAT_HELP = [
  'Type a message to talk to the agent. Commands:',
  '  /context              what the context holds: tokens by category, thresholds, what happens next',
  '  /context clear        start the context afresh (the log keeps everything)',
  '  /compact [instr.]     summarize the older part now, optionally with instructions',
  '  /config KEY VALUE     set a policy value for this session (seed names work), kept for --session',
  '  /config unset KEY     drop a setting; /config alone lists them',
  '  /help                 this list',
  '  /exit                 leave (the session is kept; resume it with --session)',
  'Ctrl-C cancels the answer or tool in flight; at the prompt, Ctrl-C twice or Ctrl-D leaves.',
].join('\n');

export class ChatSession {
  readonly sessionId: string;
  #options: ChatSessionOptions;
  #policy: Policy;
  #manager: ContextManager;
  #settings: string[];
  /** The window calls are prepared for: the one the chat started with, until a provider names a smaller. */
  #contextWindow: number | undefined;

  private constructor(options: ChatSessionOptions, policy: Policy) {
    this.sessionId = options.sessionId;
    this.#options = options;
    this.#policy = policy;
    this.#settings = [...options.settings];
    this.#contextWindow = options.contextWindow;
    this.#manager = this.#createManager(policy);
  }

  static async open(options: ChatSessionOptions): Promise<ChatSession> {
    const policy = await options.loadPolicy(options.settings);
    return new ChatSession(options, policy);
  }

  get manager(): ContextManager {
    return this.#manager;
  }

  get policy(): Policy {
    return this.#policy;
  }

  #createManager(policy: Policy): ContextManager {
    const { stores, connection } = this.#options;
    return createContextManager({
      policy,
      store: stores.store,
      blobs: stores.blobs,
      memory: stores.memory,
      trace: stores.trace,
      ...(this.#options.skills && { skills: this.#options.skills }),
      model: { client: connection.client, name: connection.model },
      ...(this.#contextWindow !== undefined && { contextWindow: this.#contextWindow }),
      ...(this.#options.maxOutputTokens !== undefined && { maxOutputTokens: this.#options.maxOutputTokens }),
    });
  }

  #agentConfig(onEvent: (event: AgentEvent) => void): AgentConfig {
    const { connection } = this.#options;
    const base: Omit<AgentConfig, 'tools'> = {
      manager: this.#manager,
      client: connection.client,
      model: connection.model,
      system: this.#options.system,
      maxSteps: this.#options.maxSteps,
      ...(this.#contextWindow !== undefined && { contextWindow: this.#contextWindow }),
      ...(this.#options.maxOutputTokens !== undefined && { maxOutputTokens: this.#options.maxOutputTokens }),
      confirm: this.#options.confirm,
      onEvent,
    };
    return { ...base, tools: this.#options.toolsFor(this.#manager, base) };
  }

  /**
   * A line typed: a command, or a message for the agent. Resolves `exit` when the person leaves, `failed`
   * when the turn ended on an error (a scripted run exits non-zero for it).
   */
  async handle(line: string, signal: AbortSignal): Promise<'exit' | 'failed' | undefined> {
    const text = line.trim();
    if (text === '') return undefined;
    if (text.startsWith('/')) return this.#command(text);
    return (await this.#turn(line, signal)) ? undefined : 'failed';
  }

  async #turn(text: string, signal: AbortSignal): Promise<boolean> {
    const { out } = this.#options;
    let midLine = false;
    let heldReturn = '';
    const endLine = () => {
      if (midLine) out.write('\n');
      midLine = false;
    };
    const onEvent = (event: AgentEvent) => {
      switch (event.type) {
        case 'text-delta': {
          // A \r\n split across two deltas is still one line end.
          const text = `${heldReturn}${event.text}`;
          heldReturn = text.endsWith('\r') ? '\r' : '';
          const escaped = escapeForTerminal((heldReturn ? text.slice(0, -1) : text).replace(/\r\n/g, '\n'), {
            multiline: true,
          });
          out.write(escaped);
          if (escaped !== '') midLine = !escaped.endsWith('\n');
          break;
        }
        case 'tool-call':
          endLine();
          out.line(toolCallLine(event.name, event.args, out.colors));
          break;
        case 'tool-result':
          out.line(toolResultLine(event.content, event.isError, out.colors));
          break;
        case 'step-end':
          if (event.stopReason === 'length' || event.stopReason === 'max_tokens') {
            endLine();
            out.line(out.colors.yellow('(the answer was cut at the output limit)'));
          }
          break;
        case 'window-learned':
          this.#contextWindow = event.contextWindow;
          endLine();
          out.line(
            out.colors.yellow(
              `! the provider's window is ${event.contextWindow.toLocaleString('en-US')} tokens: ctxkit uses it from now on`,
            ),
          );
          break;
        case 'overflow-recovered':
          endLine();
          out.line(
            out.colors.yellow(
              '! the model said the request did not fit: ctxkit compacted it and sent it again',
            ),
          );
          break;
        case 'context': {
          const rendered = contextEventLine(event.event, out.colors);
          if (rendered) {
            endLine();
            out.line(rendered);
          }
          break;
        }
        default:
          break;
      }
    };
    let ok = true;
    try {
      const result = await runTurn(this.#agentConfig(onEvent), this.sessionId, text, { signal });
      endLine();
      if (result.stopReason === 'aborted') out.line(out.colors.yellow('(cancelled)'));
      if (result.stopReason === 'window_full')
        out.line(
          out.colors.yellow(
            '(the context window filled up mid-answer: ctxkit compacted it; say "continue" to go on)',
          ),
        );
      if (result.stopReason === 'step_limit')
        out.line(
          out.colors.yellow(
            `(stopped after ${result.steps} model calls, the step limit; say "continue" to go on)`,
          ),
        );
    } catch (error) {
      ok = false;
      endLine();
      out.line(`${out.colors.red('error')} ${escapeForTerminal(withoutUrlCredentials(errorText(error)))}`);
    }
    if (out.interactive) out.line(await this.statusLine());
    return ok;
  }

  /** The window and what its fixed regions take (system prompt, tool definitions, reply reserve). */
  async fixedTokens(): Promise<{
    contextWindow: number;
    system: number;
    tools: number;
    reserve: number;
    total: number;
  }> {
    const stats = await this.#manager.stats(this.sessionId, this.#statsRequest());
    const system = stats.tokens.system + stats.tokens.memory;
    return {
      contextWindow: stats.contextWindow,
      system,
      tools: stats.tokens.tools,
      reserve: stats.maxOutputTokens,
      total: system + stats.tokens.tools + stats.maxOutputTokens,
    };
  }

  async statusLine(): Promise<string> {
    const stats = await this.#manager.stats(this.sessionId, this.#statsRequest());
    return statusLine(
      stats,
      this.#policy.display,
      {
        model: this.#options.connection.model,
        sessionId: this.sessionId,
      },
      this.#options.out.colors,
    );
  }

  #statsRequest() {
    const tools = this.#agentConfig(() => {}).tools ?? [];
    return {
      system: this.#options.system,
      tools: tools.map((tool) => tool.definition),
      model: this.#options.connection.model,
      ...(this.#contextWindow !== undefined && { contextWindow: this.#contextWindow }),
      ...(this.#options.maxOutputTokens !== undefined && { maxOutputTokens: this.#options.maxOutputTokens }),
    };
  }

  async #command(text: string): Promise<'exit' | undefined> {
    const { out } = this.#options;
    const [name = '', ...rest] = text.slice(1).split(/\s+/);
    const argument = text.slice(1 + name.length).trim();
    switch (name.toLowerCase()) {
      case 'exit':
      case 'quit':
        return 'exit';
      case 'help':
        out.line(CHAT_HELP);
        return undefined;
      case 'context': {
        if (rest[0]?.toLowerCase() === 'clear') {
          const { events } = await this.#manager.clear(this.sessionId);
          this.#printEvents(events);
          out.line('context cleared: the next call starts afresh (the log keeps everything)');
          return undefined;
        }
        const stats = await this.#manager.stats(this.sessionId, this.#statsRequest());
        const seed = contextSeed(this.#options.preset, this.#policy, stats);
        out.line(renderContext(stats, this.#policy, out.colors, seed));
        return undefined;
      }
      case 'compact': {
        const result = await this.#manager.compact(
          this.sessionId,
          argument ? { instructions: argument } : {},
        );
        this.#printEvents(result.events);
        const failed = result.events.some((event) => event.type === 'compaction-finished' && event.error);
        out.line(
          !result.compacted
            ? 'nothing to compact yet: the conversation fits in the recent part the policy keeps'
            : failed
              ? out.colors.yellow(
                  'the summary failed: the older messages were dropped with a short reminder instead',
                )
              : 'compacted',
        );
        return undefined;
      }
      case 'config':
        await this.#config(argument);
        return undefined;
      default:
        out.line(
          `${out.colors.red('unknown command')} /${escapeForTerminal(name)}: /help lists the commands`,
        );
        return undefined;
    }
  }

  /** `/config KEY VALUE`: validated as `--set KEY=VALUE` is (seed names too), applied, kept for the session. */
  async #config(argument: string): Promise<void> {
    const { out } = this.#options;
    if (argument === '') {
      out.line(
        this.#settings.length > 0
          ? `settings of this session: ${this.#settings.map((entry) => escapeForTerminal(entry)).join(', ')}`
          : 'no settings of this session yet: /config KEY VALUE sets one',
      );
      return;
    }
    const unset = /^unset\s+(\S+)$/.exec(argument);
    const match = unset ? undefined : /^(\S+)\s*(?:=\s*|\s+)(.*)$/s.exec(argument);
    const key = unset?.[1] ?? match?.[1];
    const value = unset ? undefined : match?.[2]?.trim();
    if (!key || value === '') {
      out.line(
        'usage: /config KEY VALUE (e.g. /config summarize.trigger 0.8, or a seed name: /config compression_trigger 0.8), /config unset KEY, /config to list',
      );
      return;
    }
    if (settingTargets(key).some((target) => WINDOW_KEYS.has(target))) {
      out.line(
        `${out.colors.red('error')} ${escapeForTerminal(key)}: the window and the reply reserve are the chat's --window and --max-output (the server's loaded size wins)`,
      );
      return;
    }
    const settings = withSetting(this.#settings, key, value);
    let policy: Policy;
    try {
      policy = await this.#options.loadPolicy(settings);
    } catch (error) {
      // The config layer names settings as flags; here they were typed as /config.
      const message = errorText(error).replaceAll('--set ', '/config ');
      out.line(`${out.colors.red('error')} ${escapeForTerminal(message)}`);
      return;
    }
    await saveChatSettings(this.#options.stores.dataDir, this.sessionId, settings);
    this.#settings = settings;
    this.#policy = policy;
    this.#manager.unload(this.sessionId);
    this.#manager = this.#createManager(policy);
    out.line(
      value === undefined
        ? `${escapeForTerminal(key)} unset (back to the policy's value)`
        : `${escapeForTerminal(key)} = ${escapeForTerminal(value)} (kept for this session)`,
    );
  }

  #printEvents(events: readonly ContextEvent[]): void {
    for (const event of events) {
      const rendered = contextEventLine(event, this.#options.out.colors);
      if (rendered) this.#options.out.line(rendered);
    }
  }

  async close(): Promise<void> {
    await this.#manager.flushTrace();
  }
}

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** A URL's user and password (`http://user:secret@host`) never reach the screen. */
export function withoutUrlCredentials(text: string): string {
  return text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^/@\s]+@/gi, '$1***@');
}
