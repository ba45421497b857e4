// End to end: choosing which of a log's topics feeds the loop, in the Review panel. A ROS 2 log from
// another tool (the mcap_ros2 fixture rewritten by @mcap/core's own writer, no summary) carries a
// second odometry topic, /wheel/odom (/odom with x doubled). `reins review` feeds odometry from /odom
// (its default name); the operator opens Topics, picks /wheel/odom and applies it: the core replays
// from the same moment with the new topic, and the odometry the loop reads doubles.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Paths, StatusResponse, type CockpitState } from '../../main/core/contract.ts';
import { startCoreProcess, type CoreProcess } from '../support/coreProcess.ts';
import { lz4Chunk, rewriteWithoutSummary } from '../support/otherWritersLogs.ts';

const CHROMIUM = process.env.REINS_CHROMIUM ?? '/usr/bin/chromium';
const TOKEN = 'review-topics-token-0123456789';
const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'foreign-logs', 'ros2-turning-zstd.mcap');

let folder: string;
let core: CoreProcess | undefined;
let browser: Browser | undefined;
let page: Page;

async function stateOf(): Promise<CockpitState> {
  const response = await fetch(`${core!.origin}${Paths.status}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  return StatusResponse.parse(await response.json()).state;
}

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'reins-review-topics-e2e-'));
  const log = join(folder, 'two-odometries.mcap');
  await rewriteWithoutSummary(FIXTURE, log, lz4Chunk, '/wheel/odom');
  core = await startCoreProcess(['--token', TOKEN, '--memory', join(folder, 'memory'), '--no-world-model'], 30_000, {
    command: ['review', log],
    dataHome: folder,
  });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run'] });
  page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  page.on('pageerror', (error) => console.error('page error:', error));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await core?.stop();
  rmSync(folder, { recursive: true, force: true });
});

describe('the Review panel chooses the topics of a log', () => {
  it('feeds odometry from the topic the operator picks, and says which one feeds it', async () => {
    await page.goto(core!.uiUrl);
    await expect.poll(() => page.getByTestId('review-panel').isVisible(), { timeout: 15_000 }).toBe(true);
    expect((await stateOf()).review?.topics?.odom).toBe('/odom');

    const topics = page.getByTestId('review-topics');
    await topics.locator('summary').click();
    const odometry = topics.locator('select[data-role="odom"]');
    await expect.poll(() => odometry.inputValue()).toBe('/odom');
    expect(await odometry.locator('option').allTextContents()).toEqual(expect.arrayContaining(['/odom', '/wheel/odom']));
    // Nothing changed yet: nothing to apply.
    expect(await topics.getByRole('button', { name: 'Use these topics' }).isDisabled()).toBe(true);

    await odometry.selectOption('/wheel/odom');
    await topics.getByRole('button', { name: 'Use these topics' }).click();
    await expect.poll(async () => (await stateOf()).review?.topics?.odom, { timeout: 10_000 }).toBe('/wheel/odom');
    await expect.poll(() => odometry.inputValue()).toBe('/wheel/odom');
    // The other roles keep their topics.
    expect((await stateOf()).review?.topics?.imu).toBe('/imu');
  }, 60_000);
});
