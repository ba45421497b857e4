// End to end: plots of any field. On the simulated robot the operator types a field path (offered as
// they type), adds /odom.twist.twist.linear.x and a path that names nothing, holds W and sees the
// forward speed rise while the bad path says why in words and the other series keep plotting; the
// series export as CSV. Then `reins review` opens the session just recorded and the same plot shows
// the rise over the whole log, with the replay's position drawn and a click on the plot that seeks.
// Last, a ROS 2 log another tool wrote (the mcap_ros2 fixture: a robot driving a circle at 0.3 m/s and
// 0.4 rad/s) plotted in review: its ROS 2 types' fields plot as the simulated robot's do.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeFindings } from '../support/axeAudit.ts';
import { openCockpitBrowser, type CockpitBrowser } from '../support/cockpitBrowser.ts';

const TOKEN = 'plot-test-token-0123456789';
const SPEED = '/odom.twist.twist.linear.x';
const TURN = '/imu.angular_velocity.z';
const NOTHING = '/odom.twist.twst.linear.x';
/** Written by mcap_ros2 (see test/fixtures/foreign-logs/README.md): 0.3 m/s forward, 0.4 rad/s turning, for 10 s; its IMU reads gravity alone. */
const ROS2_LOG = join(import.meta.dirname, '..', 'fixtures', 'foreign-logs', 'ros2-turning-zstd.mcap');
const ROS2_TURN = '/odom.twist.twist.angular.z';
const ROS2_GRAVITY = '/imu.linear_acceleration.z';

/** Forward speed at which the plot counts as risen: well above the resting robot's (exactly 0 in the simulation). */
const RISEN_MPS = 0.1;

let dataHome: string;
let cockpit: CockpitBrowser | undefined;
/** The highest forward speed the live plot exported: the review of the same session must show it too. */
let liveTopSpeedMps: number | undefined;

beforeAll(() => {
  dataHome = mkdtempSync(join(tmpdir(), 'reins-plot-e2e-'));
});

afterAll(async () => {
  await cockpit?.close();
  rmSync(dataHome, { recursive: true, force: true });
});

const plotPanel = (page: Page) => page.getByRole('region', { name: 'Plot', exact: true });
const fieldInput = (page: Page) => plotPanel(page).getByRole('combobox', { name: 'Field path', exact: true });

/** The plot panel moves to the top right slot (the point cloud takes its place), where its chart has room. */
async function movePlotTopRight(page: Page): Promise<void> {
  await page.getByRole('combobox', { name: 'Plot position' }).selectOption({ label: 'Top right' });
  await expect.poll(() => plotPanel(page).getAttribute('data-slot')).toBe('topRight');
  expect(await page.getByRole('region', { name: '3D view', exact: true }).getAttribute('data-slot')).toBe('bottomRight');
}

/** `reins review FILE` in the browser, the plot panel moved where its chart has room. */
async function openReview(file: string): Promise<Page> {
  cockpit = await openCockpitBrowser(['--token', TOKEN, '--no-world-model'], { command: ['review', file], dataHome });
  const { page } = cockpit;
  await page.goto(cockpit.core.uiUrl);
  await expect.poll(() => page.getByTestId('review-panel').isVisible(), { timeout: 10_000 }).toBe(true);
  await movePlotTopRight(page);
  return page;
}

async function addPath(page: Page, path: string): Promise<void> {
  const input = fieldInput(page);
  await input.fill(path);
  await plotPanel(page).getByRole('button', { name: 'Add', exact: true }).click();
  await expect.poll(() => seriesRow(page, path).count()).toBe(1);
}

const seriesRow = (page: Page, path: string) => plotPanel(page).getByRole('listitem').filter({ hasText: path });

async function latestValue(page: Page, path: string): Promise<number> {
  const text = (await seriesRow(page, path).getByTestId('series-latest').textContent()) ?? '';
  return Number(text);
}

/** Clicks Export CSV and reads the file the browser saved: the header, then rows of numbers (empty where a series has no sample). */
async function exportedCsv(page: Page): Promise<{ header: string[]; rows: (number | undefined)[][] }> {
  const [download] = await Promise.all([page.waitForEvent('download'), plotPanel(page).getByRole('button', { name: 'Export CSV' }).click()]);
  expect(download.suggestedFilename()).toMatch(/^reins-plot-.*\.csv$/);
  const text = readFileSync((await download.path())!, 'utf8');
  const [header, ...rows] = text.trim().split('\n');
  return { header: header!.split(','), rows: rows.map((row) => row.split(',').map((cell) => (cell === '' ? undefined : Number(cell)))) };
}

function column(csv: { header: string[]; rows: (number | undefined)[][] }, name: string): number[] {
  const at = csv.header.indexOf(name);
  expect(at).toBeGreaterThan(0);
  return csv.rows.map((row) => row[at]).filter((value): value is number => value !== undefined);
}

describe('plots of any field', () => {
  it('plots the forward speed rising while W is held, with a clear message for a path that names nothing', async () => {
    cockpit = await openCockpitBrowser(['--token', TOKEN, '--no-world-model'], { dataHome });
    const { page } = cockpit;
    await page.goto(cockpit.core.uiUrl);
    await expect.poll(() => page.getByTestId('core-status').textContent(), { timeout: 10_000 }).toBe('Connected');
    await movePlotTopRight(page);

    // The robot's numeric fields are offered as the operator types.
    await fieldInput(page).focus();
    await expect.poll(() => plotPanel(page).locator(`datalist option[value="${SPEED}"]`).count(), { timeout: 5000 }).toBe(1);
    expect(await plotPanel(page).locator('datalist option[value="/joint_states.velocity[0]"]').count()).toBe(1);

    // A path that does not parse is refused under the input, in words.
    await fieldInput(page).fill('/odom.twist[');
    await plotPanel(page).getByRole('button', { name: 'Add', exact: true }).click();
    await expect.poll(() => plotPanel(page).getByRole('status').textContent()).toMatch(/whole number in brackets/);

    await addPath(page, SPEED);
    await addPath(page, NOTHING);
    await addPath(page, TURN);
    await expect
      .poll(() => seriesRow(page, NOTHING).getByRole('alert').textContent(), { timeout: 5000 })
      .toBe("/odom.twist (geometry_msgs/TwistWithCovariance) has no field 'twst' at /odom.twist.twst; its fields: twist, covariance");
    await expect.poll(() => latestValue(page, SPEED), { timeout: 10_000 }).not.toBeNaN();
    expect(Math.abs(await latestValue(page, SPEED))).toBeLessThan(0.05);

    await page.getByRole('button', { name: 'Drive: W A S D', exact: true }).focus();
    await page.keyboard.down('w');
    try {
      await expect.poll(() => latestValue(page, SPEED), { timeout: 10_000 }).toBeGreaterThan(RISEN_MPS);
      // The other series kept plotting beside the one that names nothing.
      await expect.poll(() => latestValue(page, TURN)).not.toBeNaN();
      await cockpit.screenshot('plot-live-driving');
      // The panel with its series, values and a problem in words passes axe like the rest of the cockpit.
      expect.soft(await axeFindings(page)).toEqual([]);
    } finally {
      await page.keyboard.up('w');
    }
    expect(await seriesRow(page, SPEED).getByRole('alert').count()).toBe(0);

    const csv = await exportedCsv(page);
    expect(csv.header).toEqual(['time', SPEED, NOTHING, TURN]);
    const speeds = column(csv, SPEED);
    expect(speeds.length).toBeGreaterThan(50);
    expect(Math.min(...speeds.slice(0, 5).map(Math.abs))).toBeLessThan(0.05);
    liveTopSpeedMps = Math.max(...speeds);
    expect(liveTopSpeedMps).toBeGreaterThan(RISEN_MPS);
    expect(column(csv, TURN).length).toBeGreaterThan(50);
    expect(csv.rows.every((row) => row[2] === undefined)).toBe(true);

    expect(await cockpit.close()).toBe(0);
    cockpit = undefined;
  }, 90_000);

  it('plots the same field over the recorded session in review, sharing the replay’s position', async () => {
    const recordings = join(dataHome, 'reins', 'recordings');
    // The live test's core ends its recording when it stops (it has, unless that test failed first).
    await cockpit?.close();
    cockpit = undefined;
    const logs = readdirSync(recordings).filter((name) => name.endsWith('.mcap'));
    expect(logs).toHaveLength(1);
    const page = await openReview(join(recordings, logs[0]!));

    await addPath(page, SPEED);
    await addPath(page, NOTHING);
    await expect
      .poll(() => seriesRow(page, NOTHING).getByRole('alert').textContent(), { timeout: 10_000 })
      .toMatch(/has no field 'twst' at \/odom\.twist\.twst/);
    await expect.poll(async () => column(await exportedCsv(page), SPEED).length, { timeout: 10_000 }).toBeGreaterThan(50);
    const speeds = column(await exportedCsv(page), SPEED);
    expect(Math.max(...speeds)).toBeGreaterThan(RISEN_MPS);
    if (liveTopSpeedMps !== undefined) expect(Math.max(...speeds)).toBeCloseTo(liveTopSpeedMps, 2);

    // A click on the plot moves the replay there; the plot draws the position the timeline shows.
    const state = await cockpit!.robotState();
    const review = state.review!;
    const chart = plotPanel(page).getByTestId('field-chart').locator('.u-over');
    const box = (await chart.boundingBox())!;
    await chart.click({ position: { x: box.width * 0.75, y: box.height / 2 } });
    const wantedMs = review.startMs + 0.75 * (review.endMs - review.startMs);
    await expect
      .poll(async () => Math.abs((await cockpit!.robotState()).review!.positionMs - wantedMs), { timeout: 5000 })
      .toBeLessThan(0.05 * (review.endMs - review.startMs) + 400);
    const positionMs = (await cockpit!.robotState()).review!.positionMs;
    await expect
      .poll(async () => Math.abs(Number(await plotPanel(page).getByTestId('field-chart').getAttribute('data-cursor-ms')) - positionMs), { timeout: 5000 })
      .toBeLessThan(400);
    await cockpit!.screenshot('plot-review');
    expect(await axeFindings(page)).toEqual([]);
  }, 90_000);

  it('plots the fields of a ROS 2 log another tool wrote, in review', async () => {
    await cockpit?.close();
    const page = await openReview(ROS2_LOG);

    // The log's own ROS 2 types (nav_msgs/msg/Odometry, sensor_msgs/msg/Imu) offer their numeric fields.
    await fieldInput(page).focus();
    await expect.poll(() => plotPanel(page).locator(`datalist option[value="${SPEED}"]`).count(), { timeout: 5000 }).toBe(1);
    await addPath(page, SPEED);
    await addPath(page, ROS2_TURN);
    await addPath(page, ROS2_GRAVITY);
    await addPath(page, NOTHING);
    await expect
      .poll(() => seriesRow(page, NOTHING).getByRole('alert').textContent(), { timeout: 10_000 })
      .toMatch(/has no field 'twst' at \/odom\.twist\.twst/);
    // Odometry at 50 Hz and the IMU at 100 Hz over the 10 s log: the whole log plotted, with the values it was written with.
    await expect.poll(async () => column(await exportedCsv(page), ROS2_GRAVITY).length, { timeout: 10_000 }).toBeGreaterThan(50);
    const csv = await exportedCsv(page);
    expect(csv.header).toEqual(['time', SPEED, ROS2_TURN, ROS2_GRAVITY, NOTHING]);
    for (const [path, value] of [
      [SPEED, 0.3],
      [ROS2_TURN, 0.4],
      [ROS2_GRAVITY, 9.81],
    ] as const) {
      const values = column(csv, path);
      expect(values.length).toBeGreaterThan(50);
      for (const each of values) expect(each).toBeCloseTo(value, 6);
    }
    await cockpit!.screenshot('plot-review-ros2');
    expect(await axeFindings(page)).toEqual([]);
  }, 90_000);
});
