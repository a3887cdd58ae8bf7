/**
 * A real headless Chromium for page tests (Debian's `chromium` driven by playwright-core;
 * Playwright's own browser download cannot work here). Without it the test is skipped
 * locally with the reason, and fails under CI=true (`.ci/run` installs it).
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_PATH = process.env['ALPR_CHROMIUM'] ?? '/usr/bin/chromium';

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The browser, or a skip reason when it is not installed outside CI. */
export async function launchChromium(t: { teardown(fn: () => unknown): void }): Promise<Browser | string> {
  if (!existsSync(CHROMIUM_PATH)) {
    if (process.env['CI'] === 'true') throw new Error(`Chromium required under CI at ${CHROMIUM_PATH}: apt-get install chromium`);
    return `no Chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set ALPR_CHROMIUM)`;
  }
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: FLAGS, headless: true });
  t.teardown(() => browser.close());
  return browser;
}
