// End to end: the robot in its scene. On the simulated robot (ROS 1 persona, then ROS 2) the 3D view
// draws the robot model from its URDF (/robot_description), places it through TF (/tf, /tf_static),
// draws the scan where the URDF mounts the LiDAR (the drawn scan's world matrix, placed through TF,
// equals the model's laser link, placed through the URDF joint, within 1 mm and 0.1°) and the map
// (/map) under it, the planned route (/plan) and the markers (/markers) on their frames; the frames
// list shows the TF tree with each frame's rate. Then `reins review`
// plays the session just recorded and shows the same: for the ROS 1 robot a Reins log, for the ROS 2
// robot a log written in ROS 2's own encoding (cdr, ros2msg). A model given with --urdf that names a
// mesh is drawn with a note that the mesh was left out (the in-process sim's link serves no files); one that does not parse is refused in words
// while the map and the scan are still drawn. The view renders in a worker of its own (the page
// hands it the canvas), and the operator's wheel still zooms it.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { axeFindings } from '../support/axeAudit.ts';
import { openCockpitBrowser, type CockpitBrowser } from '../support/cockpitBrowser.ts';

const TOKEN = 'scene-test-token-0123456789';
const REINS = fileURLToPath(new URL('../../main/cli/reins.mjs', import.meta.url));
/** Frames every simulated robot has, as a ROS navigation robot does. */
const FRAMES = ['map', 'odom', 'base_link', 'laser', 'camera_link', 'imu_link'];

const folders: string[] = [];
let cockpit: CockpitBrowser | undefined;
let sim: ChildProcess | undefined;

afterAll(async () => {
  await cockpit?.close();
  sim?.kill('SIGTERM');
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

const view = (page: Page) => page.getByTestId('pointcloud-view');

function matrixOf(text: string | null): number[] | undefined {
  if (text === null || text === '') return undefined;
  const numbers = text.split(',').map(Number);
  return numbers.length === 16 && numbers.every(Number.isFinite) ? numbers : undefined;
}

/** How far apart two world matrices (column-major) place a thing: millimetres and degrees. */
function gap(a: number[], b: number[]): { mm: number; degrees: number } {
  const mm = Math.hypot(a[12]! - b[12]!, a[13]! - b[13]!, a[14]! - b[14]!) * 1000;
  // trace(Raᵀ Rb) is the sum of the element-wise products of the two rotations.
  let trace = 0;
  for (const column of [0, 1, 2]) for (const row of [0, 1, 2]) trace += a[column * 4 + row]! * b[column * 4 + row]!;
  const degrees = (Math.acos(Math.min(1, Math.max(-1, (trace - 1) / 2))) * 180) / Math.PI;
  return { mm, degrees };
}

/** The scene as the 3D view draws it now: the model on TF, the scan on its mount, the map under it, the TF tree listed. */
async function expectRobotInItsScene(page: Page, live: boolean): Promise<void> {
  await expect.poll(() => page.getByRole('region', { name: '3D view', exact: true }).isVisible(), { timeout: 10_000 }).toBe(true);
  await expect.poll(async () => Number(await view(page).getAttribute('data-model-links')), { timeout: 15_000 }).toBeGreaterThanOrEqual(6);
  await expect.poll(() => view(page).getAttribute('data-model-shown'), { timeout: 10_000 }).toBe('true');
  await expect.poll(() => view(page).getAttribute('data-fixed-frame'), { timeout: 10_000 }).toBe('map');
  await expect.poll(async () => Number(await view(page).getAttribute('data-map-cells')), { timeout: 10_000 }).toBeGreaterThan(1000);
  await expect.poll(() => view(page).getAttribute('data-map-shown'), { timeout: 10_000 }).toBe('true');
  // The planned route (/plan) and the markers (/markers: the goal and its label, the arena's outline,
  // its obstacles, the robot's heading) drawn on their frames.
  await expect.poll(async () => Number(await view(page).getAttribute('data-drawn-paths')), { timeout: 10_000 }).toBe(1);
  await expect.poll(async () => Number(await view(page).getAttribute('data-drawn-markers')), { timeout: 10_000 }).toBeGreaterThanOrEqual(5);

  // The scan drawn through TF sits where the URDF mounts the LiDAR on the model drawn through TF.
  await expect.poll(async () => matrixOf(await view(page).getAttribute('data-scan-world')) !== undefined, { timeout: 10_000 }).toBe(true);
  for (let sample = 0; sample < 3; sample++) {
    const [scan, link] = await view(page).evaluate((element) => [element.dataset.scanWorld ?? '', element.dataset.scanLinkWorld ?? '']);
    const scanWorld = matrixOf(scan);
    const linkWorld = matrixOf(link);
    expect(scanWorld).toBeDefined();
    expect(linkWorld).toBeDefined();
    const { mm, degrees } = gap(scanWorld!, linkWorld!);
    expect(mm).toBeLessThan(1);
    expect(degrees).toBeLessThan(0.1);
  }

  // The TF tree lists every frame; the moving ones with their rate.
  await page.getByTestId('tf-tree').locator('summary').click();
  for (const frame of FRAMES) await expect.poll(() => page.getByTestId('tf-tree').locator(`tr[data-frame="${frame}"]`).count()).toBe(1);
  const baseRow = page.getByTestId('tf-tree').locator('tr[data-frame="base_link"]');
  if (live) await expect.poll(async () => (await baseRow.locator('td').nth(1).textContent()) ?? '', { timeout: 5000 }).toMatch(/^\d+(\.\d)? Hz$/);
  expect(await page.getByTestId('tf-tree').locator('tr[data-frame="laser"] td').first().textContent()).toBe('static');
  // Nothing the view could not draw: no transform missing or stale, the model parsed. Polled, not read
  // once: a core that stalls past a transform's period + 500 ms (a full GC on this 2-core machine under
  // the suite) makes it stale for that moment, truly; the view must come back to drawing everything.
  await expect.poll(() => page.getByTestId('scene-notes').allTextContents(), { timeout: 5000 }).toEqual([]);
  // The list closed again, so that the screenshots show the robot it covered.
  await page.getByTestId('tf-tree').locator('summary').click();
  await expect.poll(() => page.getByTestId('tf-tree').evaluate((details) => (details as HTMLDetailsElement).open)).toBe(false);
}

/** Starts `reins sim` with these options; resolves with its rosbridge address. */
async function startSim(args: string[]): Promise<string> {
  const child = spawn(process.execPath, [REINS, 'sim', '--rosbridge-port', '0', ...args], {
    env: { ...process.env, REINS_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  sim = child;
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`reins sim printed no address within 20 s; stderr:\n${stderr}`)), 20_000);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const match = /^Reins sim: (ws:\/\/127\.0\.0\.1:\d+)$/.exec(line);
      if (!match) return;
      clearTimeout(timer);
      resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`reins sim exited with ${code}; stderr:\n${stderr}`)));
  });
}

async function reviewLastSession(dataHome: string): Promise<Page> {
  const recordings = join(dataHome, 'reins', 'recordings');
  const logs = readdirSync(recordings).filter((name) => name.endsWith('.mcap'));
  expect(logs).toHaveLength(1);
  cockpit = await openCockpitBrowser(['--token', TOKEN, '--no-world-model'], { command: ['review', join(recordings, logs[0]!)], dataHome });
  const { page } = cockpit;
  await page.goto(cockpit.core.uiUrl);
  await expect.poll(() => page.getByTestId('review-panel').isVisible(), { timeout: 10_000 }).toBe(true);
  // The replay plays from the start (latched topics first): start it if it waits paused.
  const play = page.getByRole('button', { name: 'Play', exact: true });
  if ((await play.count()) > 0) await play.click();
  return page;
}

describe('the robot in its scene', () => {
  let dataHome = '';

  it('draws the simulated robot from its URDF on TF, its scan at the LiDAR mount and the map under it', async () => {
    dataHome = mkdtempSync(join(tmpdir(), 'reins-scene-e2e-'));
    folders.push(dataHome);
    cockpit = await openCockpitBrowser(['--token', TOKEN, '--no-world-model'], { dataHome });
    const { page } = cockpit;
    await page.goto(cockpit.core.uiUrl);
    await expect.poll(() => page.getByTestId('core-status').textContent(), { timeout: 10_000 }).toBe('Connected');
    await expectRobotInItsScene(page, true);
    // The view renders on a thread of its own, and the operator's wheel over it still zooms it.
    expect(await view(page).getAttribute('data-scene-thread')).toBe('worker');
    const orbitDistance = async () => Number(await view(page).getAttribute('data-orbit-distance'));
    const before = await orbitDistance();
    const canvas = (await page.getByTestId('pointcloud-canvas').boundingBox())!;
    await page.mouse.move(canvas.x + canvas.width / 2, canvas.y + canvas.height / 2);
    await page.mouse.wheel(0, -500);
    await expect.poll(orbitDistance, { timeout: 5000 }).toBeLessThan(before * 0.9);
    await cockpit.screenshot('scene-live');
    expect.soft(await axeFindings(page)).toEqual([]);
    expect(await cockpit.close()).toBe(0);
    cockpit = undefined;
  }, 90_000);

  it('shows the same in review of the session just recorded', async () => {
    const page = await reviewLastSession(dataHome);
    await expectRobotInItsScene(page, false);
    await cockpit!.screenshot('scene-review');
    expect(await cockpit!.close()).toBe(0);
    cockpit = undefined;
  }, 90_000);

  it('draws a ROS 2 robot the same, live and in review of its ROS 2 log', async () => {
    dataHome = mkdtempSync(join(tmpdir(), 'reins-scene-ros2-e2e-'));
    folders.push(dataHome);
    const url = await startSim(['--ros2', '--camera', '64x48@5']);
    cockpit = await openCockpitBrowser(['--token', TOKEN, '--no-world-model', '--robot', url], { dataHome });
    await cockpit.page.goto(cockpit.core.uiUrl);
    await expect.poll(() => cockpit!.page.getByTestId('core-status').textContent(), { timeout: 10_000 }).toBe('Connected');
    await expectRobotInItsScene(cockpit.page, true);
    expect(await cockpit.close()).toBe(0);
    cockpit = undefined;
    sim?.kill('SIGTERM');
    sim = undefined;

    const page = await reviewLastSession(dataHome);
    await expectRobotInItsScene(page, false);
    await cockpit!.screenshot('scene-review-ros2');
    expect(await cockpit!.close()).toBe(0);
    cockpit = undefined;
  }, 120_000);

  it('says in words what it cannot draw of a robot model, and draws the rest of the scene', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'reins-scene-urdf-e2e-'));
    folders.push(folder);
    const meshy = join(folder, 'meshy.urdf');
    writeFileSync(
      meshy,
      '<robot name="meshy"><link name="base_link"><visual><geometry><mesh filename="package://meshy/meshes/base.stl"/></geometry></visual></link></robot>',
    );
    const broken = join(folder, 'broken.urdf');
    writeFileSync(broken, '<robot name="broken"><link name="base_link"><visual></link></robot>');

    cockpit = await openCockpitBrowser(['--token', TOKEN, '--no-world-model', '--no-record', '--urdf', meshy], { dataHome: folder });
    await cockpit.page.goto(cockpit.core.uiUrl);
    await expect.poll(() => view(cockpit!.page).getAttribute('data-model-shown'), { timeout: 15_000 }).toBe('true');
    await expect
      .poll(() => cockpit!.page.getByTestId('scene-notes').textContent(), { timeout: 10_000 })
      .toMatch(/1 mesh of the robot model not drawn: the robot's files cannot be fetched over this link \(only foxglove_bridge serves them\)/);
    expect(await cockpit.close()).toBe(0);

    cockpit = await openCockpitBrowser(['--token', TOKEN, '--no-world-model', '--no-record', '--urdf', broken], { dataHome: folder });
    const { page } = cockpit;
    await page.goto(cockpit.core.uiUrl);
    await expect
      .poll(() => page.getByTestId('scene-notes').textContent(), { timeout: 15_000 })
      .toMatch(/the robot model from file .*broken\.urdf is not valid XML/);
    expect(await view(page).getAttribute('data-model-links')).toBe('0');
    // The rest of the scene is drawn: the map and the scan on TF.
    await expect.poll(() => view(page).getAttribute('data-map-shown'), { timeout: 10_000 }).toBe('true');
    await expect.poll(async () => matrixOf(await view(page).getAttribute('data-scan-world')) !== undefined, { timeout: 10_000 }).toBe(true);
    expect(await cockpit.close()).toBe(0);
    cockpit = undefined;
  }, 90_000);
});
