#!/usr/bin/env node
// Checked before anything loads: on an older Node the SQLite addon crashes the process rather than failing.
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12) || major === 23) {
  process.stderr.write(
    `ctxkit needs Node 22.12 or newer 22.x, or 24 or newer; this is Node ${process.version}\n`,
  );
  process.exit(2);
}
await import('../dist/cli/main.js');
