// End to end, on the simulated robot: accessibility checked by a machine. axe-core's WCAG 2 A/AA and
// best-practice rules run on the live cockpit with every panel of the layout showing (driving, then
// e-stopped), on the Connect-robot dialog, and on the review screen of the session just recorded. No
// rule is turned off, nothing is excluded, and a colour contrast axe could not decide counts as a failure.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PANEL_IDS } from '../../renderer/src/lib/layout.ts';
import { axeFindings } from '../support/axeAudit.ts';
import { openCockpitBrowser, type CockpitBrowser } from '../support/cockpitBrowser.ts';

let dataHome: string;
let live: CockpitBrowser | undefined;
let review: CockpitBrowser | undefined;

beforeAll(async () => {
  // The live session records where a user's would, so that the review opens what was just driven.
  dataHome = mkdtempSync(join(tmpdir(), 'reins-accessibility-e2e-'));
  live = await openCockpitBrowser([], { dataHome });
}, 60_000);

afterAll(async () => {
  const codes = [await live?.close(), await review?.close()];
  rmSync(dataHome, { recursive: true, force: true });
  expect(codes.filter((code) => code !== undefined && code !== 0)).toEqual([]);
});

/** Every panel the layout knows is on screen: the test follows the layout's list, whatever it holds. */
async function everyPanelShows(cockpit: CockpitBrowser): Promise<void> {
  for (const panel of PANEL_IDS) {
    await expect.poll(() => cockpit.page.locator(`[data-panel="${panel}"]`).isVisible(), { timeout: 10_000, message: `panel ${panel}` }).toBe(true);
  }
}

describe('accessibility (axe-core, WCAG 2 A/AA and best practice)', () => {
  it('finds nothing on the live cockpit with every panel showing, driving and e-stopped', async () => {
    const { page } = live!;
    await page.goto(live!.core.uiUrl);
    await expect.poll(() => page.getByTestId('core-status').textContent(), { timeout: 10_000 }).toBe('Connected');
    await everyPanelShows(live!);
    await expect.poll(() => page.getByTestId('learning-panel').isVisible()).toBe(true);
    await expect.poll(() => page.getByTestId('camera-canvas').isVisible(), { timeout: 10_000 }).toBe(true);

    // The operator takes over, drives and hands back, so the figures, plots and trail show what they
    // do in use and the recording holds an intervention for the review screen below. On a loaded
    // machine a late heartbeat can end a takeover (by design): the operator takes over again.
    const state = () => live!.robotState();
    await expect
      .poll(
        async () => {
          const { tookOver } = await state();
          if (!tookOver) await page.getByRole('button', { name: /^Take over/ }).click();
          return tookOver;
        },
        { timeout: 15_000 },
      )
      .toBe(true);
    await page.getByRole('button', { name: 'Drive: W A S D', exact: true }).focus();
    await page.keyboard.down('w');
    // Checked while the key is held: the key cap lit, the Drive panel sending.
    await expect
      .poll(() => page.getByRole('region', { name: 'Drive', exact: true }).getByText('sending', { exact: true }).count(), { timeout: 10_000 })
      .toBe(1);
    // Soft, so that the e-stopped screen below is checked (and reported) even when this one fails.
    expect.soft(await axeFindings(page)).toEqual([]);
    await page.keyboard.up('w');
    await page.getByRole('button', { name: /^Hand back/ }).click();

    // E-stopped: the banner with its hold-to-release button, and the toast of a refused request.
    await page.getByRole('button', { name: 'E-stop', exact: true }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Release E-stop' }).isVisible(), { timeout: 5000 }).toBe(true);
    await page.getByRole('button', { name: 'Autonomy', exact: true }).click();
    await expect.poll(() => page.getByText('the robot is e-stopped', { exact: false }).count(), { timeout: 10_000 }).toBeGreaterThan(0);
    expect.soft(await axeFindings(page)).toEqual([]);
  }, 90_000);

  it('finds nothing on the Connect-robot dialog', async () => {
    const { page } = live!;
    await page.getByRole('button', { name: 'Connect robot', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Connect robot' });
    await expect.poll(() => dialog.isVisible()).toBe(true);
    expect(await axeFindings(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Close', exact: true }).click();
    await expect.poll(() => dialog.count()).toBe(0);
  }, 60_000);

  it('finds nothing on the review screen of the session just recorded, every panel showing', async () => {
    expect(await live!.close()).toBe(0);
    live = undefined;
    const recordings = join(dataHome, 'reins', 'recordings');
    const logs = readdirSync(recordings).filter((name) => name.endsWith('.mcap'));
    expect(logs).toHaveLength(1);
    review = await openCockpitBrowser(['--no-world-model'], { command: ['review', join(recordings, logs[0]!)], dataHome });
    const { page } = review;
    await page.goto(review.core.uiUrl);
    const panel = page.getByRole('region', { name: 'Review', exact: true });
    await expect.poll(() => panel.isVisible(), { timeout: 15_000 }).toBe(true);
    await everyPanelShows(review);

    // At the intervention, with the timeline's markers and the log's plots drawn.
    const marker = panel.getByRole('button', { name: /^Intervention at / });
    await expect.poll(() => marker.count(), { timeout: 10_000 }).toBeGreaterThan(0);
    await expect.poll(() => panel.getByRole('img', { name: /^Speed over the whole log/ }).count(), { timeout: 10_000 }).toBe(1);
    await marker.first().click();
    expect(await axeFindings(page)).toEqual([]);
  }, 90_000);
});
