// The cockpit in Debian's headless Chromium against a real `reins start --headless` core: one core
// and one browser per test file, the robot's state read back through the API as a user's script would.
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { StatusResponse, type CockpitState } from '../../main/core/contract.ts';
import { startCoreProcess, type CoreProcess, type CoreProcessOptions } from './coreProcess.ts';

const CHROMIUM = process.env.REINS_CHROMIUM ?? '/usr/bin/chromium';
/** Committed screenshots are rewritten only on request; ordinary runs leave theirs in artifacts/. */
const SCREENSHOTS = fileURLToPath(new URL(process.env.REINS_UPDATE_SCREENSHOTS ? '../e2e/screenshots/' : '../e2e/artifacts/', import.meta.url));

export interface CockpitBrowser {
  core: CoreProcess;
  browser: Browser;
  page: Page;
  /** GET /api/status with the bearer token. */
  robotState(): Promise<CockpitState>;
  screenshot(name: string): Promise<void>;
  close(): Promise<number | null>;
}

/** `coreArgs`: extra options for the core under test; `coreOptions`: its command (`reins review FILE`) and data folder. */
export async function openCockpitBrowser(coreArgs: string[] = [], coreOptions: CoreProcessOptions = {}): Promise<CockpitBrowser> {
  const core = await startCoreProcess(coreArgs, 30_000, coreOptions);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  page.on('pageerror', (error) => console.error('page error:', error));
  return {
    core,
    browser,
    page,
    async robotState() {
      const response = await fetch(`${core.origin}/api/status`, { headers: { authorization: `Bearer ${core.token}` } });
      return StatusResponse.parse(await response.json()).state;
    },
    async screenshot(name) {
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: `${SCREENSHOTS}${name}.png` });
    },
    async close() {
      await browser.close();
      const code = await core.stop();
      // Say why, so a failed shutdown in CI is diagnosable from the test output alone.
      if (code !== 0) console.error(`reins start exited with ${code}; its stderr:\n${core.stderr()}`);
      return code;
    },
  };
}
