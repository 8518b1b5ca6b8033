/**
 * One `ctxkit chat` per session at a time: two processes on one session would interleave their turns
 * and run tools whose results one of them then fails to store. A lock file per session in the data
 * directory holds the pid of the chat that has it; one left by a process that is gone is taken over.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FlagError } from '../../core/errors/index.ts';

export const CHAT_LOCKS_DIR = 'chat-locks';

export interface SessionLock {
  release(): void;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, it is someone else's.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function lockSession(dataDir: string, sessionId: string): SessionLock {
  const dir = join(dataDir, CHAT_LOCKS_DIR);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${createHash('sha256').update(sessionId).digest('hex').slice(0, 32)}.lock`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          rmSync(file, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number.parseInt(readFileSync(file, 'utf8'), 10);
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && alive(holder))
        throw new FlagError(
          '--session',
          `session ${JSON.stringify(sessionId)} is open in another ctxkit chat (pid ${holder}); leave that one first`,
        );
      rmSync(file, { force: true });
    }
  }
  throw new FlagError('--session', `could not lock session ${JSON.stringify(sessionId)}`);
}
