/**
 * Debian's chromium for the CLI's browser tests, driven by playwright-core through its
 * `executablePath` (no browser download). Without chromium a browser test file is skipped with one
 * line saying how to run it; under CI=true it fails.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { findExecutable } from '../helpers/executables.js';

/** The chromium executable, or `undefined` when there is none. */
export const CHROMIUM = findExecutable(['chromium', 'chromium-browser'], process.env.CHROMIUM_PATH);

/**
 * `true` when chromium is there. Otherwise prints why `what` is skipped (or throws under CI=true,
 * where the test must run).
 */
export function chromiumAvailable(what: string): boolean {
  if (CHROMIUM !== undefined) return true;
  const where = 'no executable chromium (CHROMIUM_PATH, PATH, /usr/bin)';
  if (process.env.CI === 'true' || process.env.CI === '1')
    throw new Error(`chromium is required in CI for ${what}: ${where} (.ci/run installs it).`);
  console.warn(`skipped ${what}: ${where}; run \`apt-get install -y chromium\` (or set CHROMIUM_PATH) to run it.`);
  return false;
}

/** A headless chromium with a fresh profile; `close()` closes it and removes the profile. */
export async function launchChromium(): Promise<{ browser: BrowserContext; close: () => Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'cli-chromium-'));
  // playwright passes the profile as --user-data-dir.
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
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
  return {
    browser,
    close: async () => {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
