import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BIN } from './testing/run-ctxkit.ts';

/** Runs the bin with `process.version` reading as `version`, set before the bin's own code runs. */
function runAs(version: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const pretend = `Object.defineProperty(process, 'versions', { value: { ...process.versions, node: ${JSON.stringify(version)} } }); Object.defineProperty(process, 'version', { value: ${JSON.stringify(`v${version}`)} });`;
  return new Promise((done) => {
    execFile(
      process.execPath,
      ['--import', `data:text/javascript,${encodeURIComponent(pretend)}`, BIN, '--version'],
      { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        done({ code, stdout, stderr });
      },
    );
  });
}

describe('ctxkit on an unsupported Node', () => {
  it.each(['20.19.0', '22.11.0', '23.11.0'])(
    'Node %s: says which Node it needs and exits 2',
    async (version) => {
      const run = await runAs(version);
      expect(run.stderr).toBe(
        `ctxkit needs Node 22.12 or newer 22.x, or 24 or newer; this is Node v${version}\n`,
      );
      expect(run.stdout).toBe('');
      expect(run.code).toBe(2);
    },
  );

  it.each(['22.12.0', '24.0.0', '26.1.0'])('Node %s: runs', async (version) => {
    const run = await runAs(version);
    expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    expect(run.code).toBe(0);
  });
});
