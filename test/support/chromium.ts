import fs from 'node:fs';
import type { Browser } from 'playwright-core';
import { chromium } from 'playwright-core';
import { announceSkip } from './external';

/** Debian's chromium (`apt-get install chromium`), which .ci/run installs. */
const CHROMIUM = '/usr/bin/chromium';

/**
 * `test` for a test that drives the service's pages in a headless Chromium, or `test.skip` with
 * the reason printed where no browser is installed; under CI a missing browser fails, never skips.
 */
export function inChromium(suite: string): jest.It {
  const runs = chromiumRuns();
  if (!runs) announceSkip(`${suite} in headless Chromium`, `${CHROMIUM} is not installed (apt-get install chromium)`);
  return runs ? test : test.skip;
}

/** Whether the browser tests run here: the browser is installed, or CI requires them. */
export function chromiumRuns(): boolean {
  return fs.existsSync(CHROMIUM) || process.env.CI === 'true';
}

/** A headless Chromium that reaches nothing on its own (no updates, no sync, no background requests). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
