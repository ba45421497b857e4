// `reins bench ui`: the cockpit as an operator sees it. `reins start --headless` on the simulated
// robot (640 × 480 camera at 30 Hz), the UI in Debian's headless Chromium, and four figures: camera
// frames shown per second, main-thread frame time while streaming and driving, key press to the
// command leaving the core, and, while the plot panel draws 8 series of /imu fields (100 Hz each) fed
// through the core's plot frames, the plot's own main-thread time per animation frame (storing the
// samples and redrawing, as the page reports it) beside the whole frame's; then, on a core of its own
// whose simulated robot sends a 20,000-point cloud, the page's frame interval with the 3D view drawing
// the robot model, the map and the cloud, and the share of clouds drawn. Never downloads a browser:
// it uses the system's Chromium.
import { existsSync } from 'node:fs';
import type { Logger } from 'pino';
import type { Browser, Page } from 'playwright-core';
import { percentiles } from '../../core/util/latencyWindow.ts';
import { PLOT_WORK_MEASURE, type CockpitState } from '../../core/contract.ts';
import { createLogger } from '../../core/runtime/logger.ts';
import { startBenchCore, type BenchCore } from './benchCoreProcess.ts';
import type { BenchRow } from './report.ts';
import { drawnCameraFrames, lastKeyDownMs, recordKeyDowns, watchFrames, watchPlotWork, type PageFrames } from './uiPageProbe.ts';
import { latencyRow, newFramesShownPerSec } from './uiSamples.ts';

export interface UiBenchOptions {
  /** `reins start` arguments for the simulated robot. */
  simArgs: string[];
  /** How long frames are watched while the robot streams and is driven. */
  watchMs: number;
  keyPresses: number;
  /** How long frames are watched while the plot panel draws PLOT_BENCH_PATHS. */
  plotWatchMs: number;
  /** `reins start` arguments for the scene phase: the simulated robot with a SCENE_CLOUD_POINTS cloud. */
  sceneSimArgs: string[];
  /** How long frames are watched while the 3D view draws the robot model, the map and the cloud. */
  sceneWatchMs: number;
  /** The points the 3D view must show before the scene phase watches its frames. */
  scenePoints: number;
}

/** The cloud the scene phase draws: the most a preview frame carries (the robot's 40 × 900 sweep at 10 Hz hits about 22,000 points, thinned by the core). */
export const SCENE_CLOUD_POINTS = 20_000;

/** 8 fields of the simulated robot's IMU, which publishes at 100 Hz. */
export const PLOT_BENCH_PATHS = [
  '/imu.angular_velocity.x',
  '/imu.angular_velocity.y',
  '/imu.angular_velocity.z',
  '/imu.linear_acceleration.x',
  '/imu.linear_acceleration.y',
  '/imu.linear_acceleration.z',
  '/imu.orientation.z',
  '/imu.orientation.w',
] as const;

export const DEFAULT_UI_BENCH_OPTIONS: Readonly<UiBenchOptions> = Object.freeze({
  simArgs: ['--sim-camera', '640x480@30', '--sim-prerendered-camera'],
  watchMs: 10_000,
  keyPresses: 30,
  plotWatchMs: 60_000,
  sceneSimArgs: ['--sim-points', '40x900@10'],
  sceneWatchMs: 20_000,
  scenePoints: SCENE_CLOUD_POINTS,
});

const CHROMIUM = process.env.REINS_CHROMIUM ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const VIEWPORT = { width: 1440, height: 900 };
/** The core re-sends a held command at the control rate; polling far faster catches the first one. */
const STATE_POLL_MS = 2;
const STATE_TIMEOUT_MS = 5000;

export async function runUiBench(options: UiBenchOptions = DEFAULT_UI_BENCH_OPTIONS, log: Logger = createLogger('reins-bench')): Promise<BenchRow[]> {
  const { chromium } = await loadPlaywright();
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: install Debian's chromium or set REINS_CHROMIUM`);
  const cockpitRows = await measureCockpit(chromium, options, log);
  log.info({ simArgs: options.sceneSimArgs, watchMs: options.sceneWatchMs }, 'the 3D view with the robot model, the map and a 20,000-point cloud');
  const scene = await measureSceneFrames(chromium, options);
  log.info(scene.details, 'scene details');
  return [
    ...cockpitRows,
    latencyRow('frame-interval', scene.frames.frameIntervalMs),
    latencyRow('scene-frame-time', scene.frames.frameWorkMs),
    { name: 'scene-clouds-drawn', unit: 'fraction', p50: null, p95: null, p99: null, value: scene.cloudsDrawnFraction },
    { name: 'scene-cloud-points', unit: 'points', p50: null, p95: null, p99: null, value: scene.cloudPoints },
  ];
}

/** The cockpit streaming and driven, key to command, and the plot panel: on the simulated robot with its default cloud. */
async function measureCockpit(chromium: typeof import('playwright-core').chromium, options: UiBenchOptions, log: Logger): Promise<BenchRow[]> {
  log.info({ simArgs: options.simArgs }, 'starting reins start --headless on the simulated robot');
  const core = await startBenchCore(options.simArgs);
  let browser: Browser | undefined;
  try {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    const page = await browser.newPage({ viewport: VIEWPORT });
    page.on('pageerror', (error) => log.error({ err: error }, 'error in the page'));
    await page.goto(core.uiUrl);
    await waitFor(async () => (await drawnCameraFrames(page)) > 0, 'the first camera frame to be drawn', 30_000);
    await page.getByRole('button', { name: 'Drive: W A S D', exact: true }).focus();

    log.info({ watchMs: options.watchMs }, 'watching frames while driving');
    const watching = watchFrames(page, options.watchMs);
    await driveAround(page, options.watchMs);
    const frames = await watching;

    log.info({ presses: options.keyPresses }, 'key press to command');
    const keyToCommandMs = await measureKeyToCommand(page, core, options.keyPresses);

    log.info({ series: PLOT_BENCH_PATHS.length, watchMs: options.plotWatchMs }, 'plotting IMU fields');
    const plot = await measurePlotFrames(page, options.plotWatchMs);

    const cameraFps = newFramesShownPerSec(frames.shown);
    log.info(
      {
        cameraShownFps: cameraFps,
        cameraDrawnFps: frames.drawnFrames / (options.watchMs / 1000),
        animationFrames: frames.shown.length,
        frameIntervalMs: percentiles(frames.frameIntervalMs),
      },
      'ui bench details',
    );
    return [
      { name: 'camera-fps', unit: 'fps', p50: null, p95: null, p99: null, value: cameraFps },
      latencyRow('frame-time', frames.frameWorkMs),
      latencyRow('key-to-command', keyToCommandMs),
      latencyRow('plot-series-update', plot.plotWorkMs),
      latencyRow('plot-frame-time', plot.frames.frameWorkMs),
      { name: 'plot-series-rate', unit: 'Hz', p50: null, p95: null, p99: null, value: plot.samplesPerSeriesHz },
    ];
  } finally {
    await browser?.close();
    await core.stop();
  }
}

/**
 * A core of its own on the simulated robot with a 20,000-point cloud; the page waits until the 3D view
 * shows the robot model and the map and a full cloud, then watches its frames: their interval (the
 * page's pace with all of it drawn) and how many of the clouds received were drawn (each is counted
 * by the view, drawn and received: a cloud replaced before it was drawn is one not drawn).
 */
async function measureSceneFrames(
  chromium: typeof import('playwright-core').chromium,
  options: UiBenchOptions,
): Promise<{ frames: PageFrames; cloudsDrawnFraction: number; cloudPoints: number; details: Record<string, number> }> {
  const core = await startBenchCore(options.sceneSimArgs);
  let browser: Browser | undefined;
  try {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    const page = await browser.newPage({ viewport: VIEWPORT });
    await page.goto(core.uiUrl);
    const view = page.getByTestId('pointcloud-view');
    const attribute = async (name: string) => Number(await view.getAttribute(name));
    await waitFor(async () => (await attribute('data-model-links')) > 0, 'the robot model in the 3D view', 30_000);
    await waitFor(async () => (await attribute('data-map-cells')) > 0, 'the map in the 3D view', 30_000);
    await waitFor(async () => (await attribute('data-points')) >= options.scenePoints, `a cloud of ${options.scenePoints} points in the 3D view`, 30_000);
    const [drawnBefore, receivedBefore] = [await attribute('data-drawn-clouds'), await attribute('data-received-clouds')];
    const frames = await watchFrames(page, options.sceneWatchMs);
    const [drawn, received] = [(await attribute('data-drawn-clouds')) - drawnBefore, (await attribute('data-received-clouds')) - receivedBefore];
    if (received <= 0) throw new Error(`no point cloud reached the page in ${options.sceneWatchMs} ms of the scene phase`);
    return {
      frames,
      cloudsDrawnFraction: drawn / received,
      cloudPoints: await attribute('data-points'),
      details: { cloudsReceived: received, cloudsDrawn: drawn, animationFrames: frames.frameIntervalMs.length },
    };
  } finally {
    await browser?.close();
    await core.stop();
  }
}

/**
 * Adds the bench's paths in the plot panel as an operator would, waits until every series shows a
 * value, then watches the page's frames; also the samples each series received per second meanwhile.
 */
async function measurePlotFrames(page: Page, watchMs: number): Promise<{ frames: PageFrames; plotWorkMs: number[]; samplesPerSeriesHz: number }> {
  const panel = page.getByRole('region', { name: 'Plot', exact: true });
  const input = panel.getByRole('combobox', { name: 'Field path', exact: true });
  for (const path of PLOT_BENCH_PATHS) {
    await input.fill(path);
    await panel.getByRole('button', { name: 'Add', exact: true }).click();
  }
  const latest = panel.getByTestId('series-latest');
  await waitFor(
    async () => (await latest.allTextContents()).filter((text) => Number.isFinite(Number(text))).length === PLOT_BENCH_PATHS.length,
    'every plotted series to show a value',
    30_000,
  );
  const received = async () => Number(await panel.getByRole('list', { name: 'Plotted series' }).getAttribute('data-samples-received'));
  const [before, startMs] = [await received(), Date.now()];
  const [frames, plotWorkMs] = await Promise.all([watchFrames(page, watchMs), watchPlotWork(page, watchMs, PLOT_WORK_MEASURE)]);
  const samplesPerSeriesHz = (await received()) - before;
  return { frames, plotWorkMs, samplesPerSeriesHz: samplesPerSeriesHz / PLOT_BENCH_PATHS.length / ((Date.now() - startMs) / 1000) };
}

async function loadPlaywright(): Promise<typeof import('playwright-core')> {
  try {
    return await import('playwright-core');
  } catch (error) {
    throw new Error(`reins bench ui needs playwright-core, a development dependency (npm ci without --omit=dev): ${(error as Error).message}`);
  }
}

/** Holds W and weaves left and right, so the camera view, the scan and the status keep changing. */
async function driveAround(page: Page, durationMs: number): Promise<void> {
  const endMs = Date.now() + durationMs;
  await page.keyboard.down('w');
  for (let turn = 0; Date.now() < endMs; turn++) {
    const key = turn % 2 === 0 ? 'a' : 'd';
    await page.keyboard.down(key);
    await sleep(Math.min(400, Math.max(0, endMs - Date.now())));
    await page.keyboard.up(key);
  }
  await page.keyboard.up('w');
}

/**
 * Press, wait until the core has sent the operator's command, release, wait for the zero. The
 * sample is the command's send time (the core's clock) minus the key event's time (the page's
 * clock); both are this machine's epoch clock.
 */
async function measureKeyToCommand(page: Page, core: BenchCore, presses: number): Promise<number[]> {
  await recordKeyDowns(page);
  await waitForState(core, isStill, 'the robot to be told to stand still');
  const samplesMs: number[] = [];
  for (let press = 0; press < presses; press++) {
    // Forward and back in turn, so the robot stays where it is.
    const key = press % 2 === 0 ? 'w' : 's';
    const beforeMs = (await core.state()).lastCommandAtMs;
    await page.keyboard.down(key);
    const sent = await waitForState(core, (state) => state.driver === 'operator' && state.lastCommandAtMs !== beforeMs, 'the operator command');
    samplesMs.push(sent.lastCommandAtMs! - (await lastKeyDownMs(page)));
    await page.keyboard.up(key);
    await waitForState(core, isStill, 'the zero after the key was released');
  }
  return samplesMs;
}

function isStill(state: CockpitState): boolean {
  return state.driver !== 'operator' && state.lastCommand.linearMps === 0 && state.lastCommand.angularRadps === 0;
}

async function waitForState(core: BenchCore, check: (state: CockpitState) => boolean, what: string): Promise<CockpitState> {
  let last: CockpitState | undefined;
  await waitFor(async () => check((last = await core.state())), what, STATE_TIMEOUT_MS, STATE_POLL_MS);
  return last!;
}

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs: number, pollMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(pollMs);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
