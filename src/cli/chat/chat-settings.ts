/**
 * What `/config key value` set for a chat session, kept so `ctxkit chat --session ID` comes back with
 * it: `<data>/chat-settings.json`, one list of `key=value` settings per session id, applied after the
 * flags' own `--set`s (a later setting of the same key wins, as with repeated `--set`). Written to a
 * temporary file and renamed over the old one, so a crash leaves the old file or the new, never half.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { InvalidConfigError } from '../../core/errors/index.ts';
import { SEED_ALIAS_BY_NAME } from '../../core/policy/policy-aliases.ts';

export const CHAT_SETTINGS_FILE = 'chat-settings.json';

const SettingsSchema = z.strictObject({
  version: z.literal(1),
  sessions: z.record(z.string(), z.strictObject({ set: z.array(z.string()) })),
});

type Settings = z.infer<typeof SettingsSchema>;

export function chatSettingsPath(dataDir: string): string {
  return join(dataDir, CHAT_SETTINGS_FILE);
}

async function readSettings(dataDir: string): Promise<Settings> {
  const path = chatSettingsPath(dataDir);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, sessions: {} };
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new InvalidConfigError(
      '(file)',
      `not JSON: ${error instanceof Error ? error.message : String(error)}`,
      { source: `file:${path}`, file: path },
    );
  }
  const parsed = SettingsSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InvalidConfigError(
      issue ? issue.path.map(String).join('.') || '(root)' : '(root)',
      issue?.message ?? 'invalid chat settings',
      { source: `file:${path}`, file: path },
    );
  }
  return parsed.data;
}

/** The `key=value` settings `/config` stored for a session, oldest first. */
export async function loadChatSettings(dataDir: string, sessionId: string): Promise<string[]> {
  const settings = await readSettings(dataDir);
  return Object.hasOwn(settings.sessions, sessionId) ? [...(settings.sessions[sessionId]?.set ?? [])] : [];
}

/** Replaces a session's settings (the list `/config` keeps, oldest first). */
export async function saveChatSettings(
  dataDir: string,
  sessionId: string,
  set: readonly string[],
): Promise<void> {
  const settings = await readSettings(dataDir);
  // A record built with defineProperty: a session id such as `__proto__` is an id like any other.
  const sessions: Settings['sessions'] = Object.create(null);
  for (const [id, entry] of Object.entries(settings.sessions)) sessions[id] = entry;
  Object.defineProperty(sessions, sessionId, {
    value: { set: [...set] },
    enumerable: true,
    writable: true,
    configurable: true,
  });
  await mkdir(dataDir, { recursive: true });
  const path = chatSettingsPath(dataDir);
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify({ version: 1, sessions }, null, 2)}\n`);
  await rename(temporary, path);
}

/** The policy paths a setting's key sets: itself, or every path a seed name stands for. */
export function settingTargets(key: string): string[] {
  const alias = SEED_ALIAS_BY_NAME.get(key);
  if (!alias) return [key];
  return [...new Set(Object.values(alias.meanings).map((meaning) => meaning.target))];
}

const keyOf = (entry: string): string => entry.slice(0, entry.indexOf('='));

/**
 * The settings with `key` set to `value` (or removed, for `undefined`): any earlier setting of the same
 * policy path goes, whether it was written with the seed's name or ctxkit's, so the later one wins.
 */
export function withSetting(settings: readonly string[], key: string, value: string | undefined): string[] {
  const targets = new Set(settingTargets(key));
  const kept = settings.filter(
    (entry) => !settingTargets(keyOf(entry)).some((target) => targets.has(target)),
  );
  return value === undefined ? kept : [...kept, `${key}=${value}`];
}
