// End to end: the robot's meshes in the 3D view. Over the simulated robot served as foxglove_bridge
// serves one (`reins sim --foxglove-port`: its URDF names the LiDAR housing's STL, its `assets` serve
// it), the view fetches the mesh through the core (`/api/robot-asset`) from its worker and draws it,
// with nothing to note. Given a URDF with --urdf that names a mesh the robot does not have and one in
// a format the view does not read, each is named in a note with its reason, the first with its link's
// collision shape drawn in its place, while the mesh the robot has is still drawn.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCockpitBrowser, type CockpitBrowser } from '../support/cockpitBrowser.ts';

const TOKEN = 'robot-meshes-test-token-0123456789';
const REINS = fileURLToPath(new URL('../../main/cli/reins.mjs', import.meta.url));

const folders: string[] = [];
let cockpit: CockpitBrowser | undefined;
let sim: ChildProcess | undefined;
let foxgloveRobot = '';

/** Starts `reins sim` serving the robot over foxglove too; resolves with its foxglove:// address. */
async function startFoxgloveSim(): Promise<string> {
  const child = spawn(process.execPath, [REINS, 'sim', '--rosbridge-port', '0', '--foxglove-port', '0', '--camera', '64x48@5'], {
    env: { ...process.env, REINS_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  sim = child;
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`reins sim printed no foxglove address within 20 s; stderr:\n${stderr}`)), 20_000);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const match = /^Reins sim foxglove: ws:\/\/(127\.0\.0\.1:\d+)$/.exec(line);
      if (!match) return;
      clearTimeout(timer);
      resolve(`foxglove://${match[1]!}`);
    });
    child.once('exit', (code) => reject(new Error(`reins sim exited with ${code}; stderr:\n${stderr}`)));
  });
}

beforeAll(async () => {
  foxgloveRobot = await startFoxgloveSim();
}, 30_000);

afterAll(async () => {
  await cockpit?.close();
  sim?.kill('SIGTERM');
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

const view = (page: Page) => page.getByTestId('pointcloud-view');

async function openOnFoxgloveRobot(extraArgs: string[]): Promise<Page> {
  const dataHome = mkdtempSync(join(tmpdir(), 'reins-meshes-e2e-'));
  folders.push(dataHome);
  cockpit = await openCockpitBrowser(['--token', TOKEN, '--no-world-model', '--no-record', '--robot', foxgloveRobot, ...extraArgs], { dataHome });
  const { page } = cockpit;
  await page.goto(cockpit.core.uiUrl);
  await expect.poll(() => page.getByTestId('core-status').textContent(), { timeout: 10_000 }).toBe('Connected');
  await expect.poll(() => view(page).getAttribute('data-model-shown'), { timeout: 20_000 }).toBe('true');
  return page;
}

describe('the robot’s meshes in the 3D view', () => {
  it('draws the LiDAR housing the foxglove robot serves, with nothing to note', async () => {
    const page = await openOnFoxgloveRobot([]);
    expect(await view(page).getAttribute('data-scene-thread')).toBe('worker');
    await expect.poll(() => view(page).getAttribute('data-model-meshes'), { timeout: 15_000 }).toBe('1');
    expect(Number(await view(page).getAttribute('data-model-links'))).toBeGreaterThanOrEqual(6);
    expect(await page.getByTestId('scene-notes').count()).toBe(0);
    await cockpit!.screenshot('scene-meshes');
    expect(await cockpit!.close()).toBe(0);
    cockpit = undefined;
  }, 90_000);

  it('names each mesh it cannot draw and why, drawing the link’s collision shape in its place', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'reins-meshes-urdf-e2e-'));
    folders.push(folder);
    const urdf = join(folder, 'partly.urdf');
    writeFileSync(
      urdf,
      [
        '<robot name="partly">',
        '  <link name="base_link">',
        '    <visual><geometry><mesh filename="package://reins_sim/meshes/chassis.stl"/></geometry></visual>',
        '    <visual><geometry><mesh filename="package://reins_sim/meshes/bumper.dae"/></geometry></visual>',
        '    <collision><geometry><box size="0.3 0.3 0.1"/></geometry></collision>',
        '  </link>',
        '  <link name="laser"><visual><geometry><mesh filename="package://reins_sim/meshes/lidar_housing.stl"/></geometry></visual></link>',
        '  <joint name="laser_joint" type="fixed"><parent link="base_link"/><child link="laser"/><origin xyz="0 0 0.2" rpy="0 0 0"/></joint>',
        '</robot>',
      ].join('\n'),
    );
    const page = await openOnFoxgloveRobot(['--urdf', urdf]);
    await expect.poll(() => view(page).getAttribute('data-model-meshes'), { timeout: 15_000 }).toBe('1');
    const notes = page.getByTestId('scene-notes').locator('li');
    await expect
      .poll(() => notes.allTextContents(), { timeout: 10_000 })
      .toEqual([
        'Mesh package://reins_sim/meshes/chassis.stl not drawn: the foxglove server could not send package://reins_sim/meshes/chassis.stl: ' +
          "Failed to retrieve asset package://reins_sim/meshes/chassis.stl; link base_link's collision shape is drawn in its place",
        "Mesh package://reins_sim/meshes/bumper.dae not drawn: its format (.dae) is not drawn by the 3D view, only STL and OBJ; link base_link's collision shape is drawn in its place",
      ]);
    expect(await cockpit!.close()).toBe(0);
    cockpit = undefined;
  }, 90_000);
});
