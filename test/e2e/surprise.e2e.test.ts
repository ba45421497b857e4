// End to end: the world model's surprise at a shove. `reins sim` with its own sensors (the camera the
// encoders were trained on), a real `reins start` on it with the trained encoders (models/manifest.json)
// and a world-model checkpoint trained on them by `reins bench worldmodel` (kept as a test fixture; the
// learner resumes from it as it would from its own), the cockpit in Debian's headless Chromium. The
// operator drives a slow circle with the keys; a shove is injected through `/sim/inject`; the cockpit's
// surprise alarm names proprioception within 0.5 s. Then `reins review` of that session's log marks the
// surprise on its timeline.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Paths, ReviewTimelineResponse, type CockpitState } from '../../main/core/contract.ts';
import { readCheckpoint } from '../../main/worldmodel/checkpointFile.ts';
import { checkpointPath, worldModelVersion } from '../../main/worldmodel/learner/checkpointDirectory.ts';
import { openCockpitBrowser, type CockpitBrowser } from '../support/cockpitBrowser.ts';
import { killSimChild, startSimChild, type SimChild } from '../support/simChildProcess.ts';
import { SimRosbridgeClient } from '../support/simRosbridgeClient.ts';

const FIXTURE = fileURLToPath(new URL('../fixtures/world-model/reins-sim-encoders-3-bench.ckpt', import.meta.url));
const ENCODERS = fileURLToPath(new URL('../../models/manifest.json', import.meta.url));
/** The bound: from the shove to the cockpit naming the modality. */
const NAMED_WITHIN_MS = 500;
/** Driving before the shove (part of the scenario), so the scorer's usual levels are of ordinary driving under the trained weights. */
const DRIVE_BEFORE_SHOVE_MS = 8000;
/** A hard sideways kick (the bench's shoves are 0.6–1.5 m/s; the most the sim takes is 3). */
const SHOVE = { kind: 'shove', forwardMps: 0, leftwardMps: 2.5 } as const;

let dataHome: string;
let sim: SimChild;
let cockpit: CockpitBrowser | undefined;
let reviewing: CockpitBrowser | undefined;
let shoveAtMs = 0;
let checkpoint: Awaited<ReturnType<typeof readCheckpoint>>;

beforeAll(async () => {
  dataHome = mkdtempSync(join(tmpdir(), 'reins-surprise-e2e-'));
  // Where the learner looks for its own checkpoints: the session resumes from the fixture.
  checkpoint = await readCheckpoint(FIXTURE);
  const folder = join(dataHome, 'reins', 'world-model');
  mkdirSync(folder, { recursive: true });
  copyFileSync(FIXTURE, checkpointPath(folder, checkpoint.encoderVersion, checkpoint.trainSteps));
  // The sim's own camera (the helper's default is a tiny one), in an arena the model never saw.
  sim = await startSimChild(0, ['--camera', '160x120@15', '--arena-seed', '9001']);
}, 60_000);

afterAll(async () => {
  const reviewCode = await reviewing?.close();
  const code = await cockpit?.close();
  if (sim) await killSimChild(sim, 'SIGTERM');
  rmSync(dataHome, { recursive: true, force: true });
  expect(code ?? 0).toBe(0);
  expect(reviewCode ?? 0).toBe(0);
});

async function waitForState(check: (state: CockpitState) => boolean, what: string, timeoutMs: number): Promise<CockpitState> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = await cockpit!.robotState();
    if (check(state)) return state;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last state: ${JSON.stringify(state.worldModel)}`);
    await cockpit!.page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 50))));
  }
}

describe('the world model notices a shove', () => {
  it('names proprioception in the cockpit within half a second of a shove while driving', async () => {
    cockpit = await openCockpitBrowser(['--robot', sim.url, '--encoders', ENCODERS], { dataHome });
    const { page, core } = cockpit;
    await page.goto(core.uiUrl);
    await expect.poll(() => page.getByRole('button', { name: 'Drive: W A S D', exact: true }).isVisible(), { timeout: 15_000 }).toBe(true);
    // The learner resumed from the fixture and handed its weights (or a later step's) to the loop's filter.
    const prefix = worldModelVersion(checkpoint.encoderVersion, 0).slice(0, -1);
    const stepOf = (version = '') => (version.startsWith(prefix) ? Number(version.slice(prefix.length)) : -1);
    await waitForState(
      (state) => stepOf(state.worldModel?.version) >= checkpoint.trainSteps,
      `the fixture's weights (${prefix}${checkpoint.trainSteps})`,
      60_000,
    );

    // A slow circle (0.5 m/s, 1 rad/s: half a metre across) keeps clear of walls.
    await page.getByRole('button', { name: 'Drive: W A S D', exact: true }).focus();
    await page.keyboard.down('w');
    await page.keyboard.down('a');
    const drivingSinceMs = Date.now();
    const settled = await waitForState(
      (state) =>
        Date.now() - drivingSinceMs >= DRIVE_BEFORE_SHOVE_MS && (state.measuredSpeed?.linearMps ?? 0) > 0.2 && state.worldModel?.surpriseAlarm === false,
      'the robot circling with no surprise alarm',
      60_000,
    );
    expect(settled.driver).toBe('operator');

    // The page notes when the alarm first names proprioception, on the same clock as the shove's.
    await page.evaluate(() => {
      const seen = window as unknown as { proprioAlarmAtMs?: number };
      const look = () => {
        const alarm = document.querySelector('[data-testid="world-model-surprise-alarm"]');
        if (seen.proprioAlarmAtMs === undefined && alarm?.textContent?.includes('proprio')) seen.proprioAlarmAtMs = Date.now();
      };
      new MutationObserver(look).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    const client = await SimRosbridgeClient.open(sim.url);
    try {
      shoveAtMs = Date.now();
      const response = await client.call('/sim/inject', SHOVE);
      expect(response).toMatchObject({ result: true, values: { injected: 'shove' } });
    } finally {
      client.close();
    }
    const alarmAtMs = await page.waitForFunction(() => (window as unknown as { proprioAlarmAtMs?: number }).proprioAlarmAtMs, undefined, { timeout: 10_000 });
    const namedAfterMs = ((await alarmAtMs.jsonValue()) as number) - shoveAtMs;
    expect(namedAfterMs).toBeLessThanOrEqual(NAMED_WITHIN_MS);
    await expect.poll(() => page.getByTestId('world-model-surprise-ratio').textContent()).toContain('proprio');
    await cockpit.screenshot('cockpit-surprise-shove');
    await page.keyboard.up('a');
    await page.keyboard.up('w');
  }, 150_000);

  it('marks the shove on the review timeline of that session', async () => {
    expect(await cockpit!.close()).toBe(0);
    cockpit = undefined;
    const folder = join(dataHome, 'reins', 'recordings');
    const logs = existsSync(folder) ? readdirSync(folder).filter((name) => name.endsWith('.mcap')) : [];
    expect(logs).toHaveLength(1);
    reviewing = await openCockpitBrowser(['--no-memory', '--no-world-model'], { command: ['review', join(folder, logs[0]!)], dataHome });
    const { core, page } = reviewing;
    const timeline = ReviewTimelineResponse.parse(
      await (await fetch(`${core.origin}${Paths.reviewTimeline}`, { headers: { authorization: `Bearer ${core.token}` } })).json(),
    );
    // The log's times are the robot's clock (the sim's, on this machine): the mark lies within a second after the shove.
    const marked = timeline.markers.filter(
      (marker) => marker.kind === 'surprise' && marker.label.includes('(proprio)') && marker.atMs >= shoveAtMs - 200 && marker.atMs <= shoveAtMs + 1000,
    );
    expect(marked, JSON.stringify(timeline.markers)).toHaveLength(1);
    await page.goto(core.uiUrl);
    const review = page.getByRole('region', { name: 'Review', exact: true });
    // Its marker on the timeline, labelled as the cockpit named it.
    const label = marked[0]!.label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    await expect
      .poll(() => review.getByRole('button', { name: new RegExp(`^Surprise at \\d\\d:\\d\\d:\\d\\d\\.\\d: ${label}$`) }).count(), { timeout: 15_000 })
      .toBe(1);
    await reviewing.screenshot('review-surprise-shove');
  }, 60_000);
});
