/**
 * Debian's Chromium for browser tests, launched the way this machine needs it: headless, no sandbox (the
 * tests run as root), and none of the background connections a closed network refuses.
 */
import { existsSync } from 'node:fs';
import { type BrowserContext, chromium } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

export const CHROMIUM_ARGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * A browser with its profile in `profileDir`. The page's own Content-Security-Policy is bypassed, so an
 * external load it would refuse reaches the test's network routes and is recorded. `what` names the test
 * in the error a missing Chromium gives.
 */
export async function launchTestChromium(profileDir: string, what: string): Promise<BrowserContext> {
  if (!existsSync(CHROMIUM_PATH))
    throw new Error(
      `${CHROMIUM_PATH} is missing: ${what} needs Debian's Chromium (apt-get install -y chromium; .ci/run installs it)`,
    );
  return chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_ARGS],
    bypassCSP: true,
    viewport: { width: 1400, height: 900 },
  });
}
