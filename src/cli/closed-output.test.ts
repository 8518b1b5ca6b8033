import { spawn } from 'node:child_process';
import { expect, it } from 'vitest';
import { BIN, ROOT } from './testing/run-ctxkit.ts';

it('a reader that goes away (| head) ends the output quietly: no EPIPE crash, exit 0', async () => {
  const child = spawn(process.execPath, [BIN, 'chat', '--help'], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1' },
  });
  child.stdout.destroy();
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', (status) => resolve(status)));
  expect(stderr).not.toMatch(/EPIPE|Unhandled/);
  expect(code).toBe(0);
});
