// End to end: `reins start --headless --port 0` on the simulated robot, the UI in Debian's headless
// Chromium. The camera image changes, the robot moves while a drive key is held, and E-stop stops it;
// the point cloud shows in 3D.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CockpitState } from '../../main/core/contract.ts';
import { openCockpitBrowser, type CockpitBrowser } from '../support/cockpitBrowser.ts';
import type { CoreProcess } from '../support/coreProcess.ts';

let cockpit: CockpitBrowser;
let core: CoreProcess;
let page: Page;

beforeAll(async () => {
  cockpit = await openCockpitBrowser();
  ({ core, page } = cockpit);
}, 60_000);

afterAll(async () => {
  expect(await cockpit?.close()).toBe(0);
});

const robotState = (): Promise<CockpitState> => cockpit.robotState();

async function waitForState(check: (state: CockpitState) => boolean, what: string, timeoutMs = 10_000): Promise<CockpitState> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = await robotState();
    if (check(state)) return state;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last state: ${JSON.stringify(state)}`);
    // Poll on the page's own frame clock rather than a fixed sleep.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 50))));
  }
}

const cameraPixels = () => page.getByTestId('camera-canvas').evaluate((canvas) => (canvas as HTMLCanvasElement).toDataURL('image/png'));

describe('the cockpit in a browser', () => {
  it('connects, drives while a key is held, and stops on E-stop', async () => {
    await page.goto(core.uiUrl);
    await expect.poll(() => page.getByRole('region', { name: 'Camera' }).isVisible()).toBe(true);
    await expect.poll(() => page.getByRole('button', { name: 'E-stop', exact: true }).isVisible()).toBe(true);
    expect(page.url()).not.toContain(core.token);

    // The camera image arrives and changes as the simulation runs.
    await expect.poll(async () => (await cameraPixels()).length, { timeout: 10_000 }).toBeGreaterThan(2000);
    const firstFrame = await cameraPixels();

    // Zoom the LiDAR view in to 2 m, where the robot's trail reads at a glance.
    await page.getByRole('button', { name: 'Zoom in' }).click();
    await page.getByRole('button', { name: 'Zoom in' }).click();

    // Drive forward with W while the drive pad has focus.
    await page.getByRole('button', { name: 'Drive: W A S D', exact: true }).focus();
    await page.keyboard.down('w');
    const moving = await waitForState((s) => (s.measuredSpeed?.linearMps ?? 0) > 0.1, 'the robot to move');
    expect(moving.driver).toBe('operator');
    await expect.poll(cameraPixels, { timeout: 10_000 }).not.toBe(firstFrame);
    await expect.poll(() => page.getByTestId('measured-speed').textContent(), { timeout: 5000 }).toMatch(/0\.[1-9]\d* m\/s/);

    // Curve left for a while, so the LiDAR view shows a trail and the plots a turn.
    const start = moving.odomPose;
    expect(start).toBeDefined();
    await page.keyboard.down('a');
    await waitForState(
      (s) => s.odomPose !== undefined && start !== undefined && Math.hypot(s.odomPose.xM - start.xM, s.odomPose.yM - start.yM) > 0.5,
      'the robot to travel half a metre',
    );
    await page.keyboard.up('a');
    await cockpit.screenshot('cockpit-driving');

    // E-stop with Space while W is still held: the robot stops and stays stopped.
    await page.keyboard.press('Space');
    const stopped = await waitForState((s) => s.estopped && Math.abs(s.measuredSpeed?.linearMps ?? 1) < 0.02, 'the robot to stop');
    expect(stopped.driver).toBe('estopped');
    expect(stopped.lastCommand).toEqual({ linearMps: 0, angularRadps: 0 });
    await expect.poll(() => page.getByRole('button', { name: 'Release E-stop' }).isVisible()).toBe(true);
    await page.keyboard.up('w');
    await cockpit.screenshot('cockpit-estopped');
  }, 60_000);

  it('shows the point cloud in 3D, orbits and zooms by pointer, and leaves the keys to the cockpit', async () => {
    const region = page.getByRole('region', { name: '3D view' });
    await expect.poll(() => region.isVisible()).toBe(true);
    const view = page.getByTestId('pointcloud-view');
    // The simulated robot's 16 × 360 sweep returns thousands of points off the floor, walls and obstacles.
    await expect.poll(async () => Number(await view.getAttribute('data-points')), { timeout: 10_000 }).toBeGreaterThan(1000);
    await expect.poll(async () => Number(await view.getAttribute('data-drawn-clouds')), { timeout: 10_000 }).toBeGreaterThan(2);
    // WebGL runs in headless Chromium (SwiftShader): no text fallback in place of the view.
    expect(await region.getByText('3D view unavailable').count()).toBe(0);
    expect(await page.getByTestId('pointcloud-canvas').isVisible()).toBe(true);

    // Orbit with a drag and zoom in with the wheel.
    const canvasBox = (await page.getByTestId('pointcloud-canvas').boundingBox())!;
    await page.mouse.move(canvasBox.x + canvasBox.width / 2, canvasBox.y + canvasBox.height / 2);
    await page.mouse.down();
    await page.mouse.move(canvasBox.x + canvasBox.width / 2 + 60, canvasBox.y + canvasBox.height / 2 - 20, { steps: 5 });
    await page.mouse.up();
    await page.mouse.wheel(0, -300);

    // The keymap still answers with the pointer on the 3D view: Escape e-stops (the robot stays stopped).
    await page.keyboard.press('Escape');
    expect((await robotState()).estopped).toBe(true);
    await page.waitForTimeout(300);
    await cockpit.screenshot('cockpit-point-cloud');
  }, 30_000);

  it('reconnects after a reload without the token in the address bar', async () => {
    await page.reload();
    expect(page.url()).not.toContain(core.token);
    await expect.poll(() => page.getByTestId('core-status').textContent(), { timeout: 10_000 }).toBe('Connected');
    await expect.poll(() => page.getByRole('button', { name: 'Release E-stop' }).isVisible()).toBe(true);
  }, 30_000);
});
