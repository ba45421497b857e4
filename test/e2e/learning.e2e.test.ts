// End to end, on the simulated robot: teaching. With autonomy on, the operator takes over and hands
// back (one intervention, however long), a learner turns that into a new policy version that drives
// (auto-promote, as on the simulated robot), a preference question shows two clips read back from the
// live recording and takes an answer, G rates and U undoes with a toast each, "Roll back" returns to
// v1, "Retrain from memory" trains a fresh version on the whole memory (the slow path), and the trend
// of interventions per minute of policy driving shows the rate falling as versions come. The core
// runs in this process with the real online learner, made small and stepped by the test (its timer is
// off), so that versions appear when the test says and not a moment later.
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StatusResponse, type CockpitState } from '../../main/core/contract.ts';
import { CockpitService } from '../../main/api/cockpitService.ts';
import { RobotConnections } from '../../main/api/robotConnections.ts';
import { startApiServer, type ApiServer } from '../../main/api/server.ts';
import { startLearning, type LiveLearning } from '../../main/session/learningWiring.ts';
import { openSessionStores, type SessionStores } from '../../main/session/sessionStores.ts';
import { createControlLoop } from '../../main/session/loopWiring.ts';
import { OnlineImprover } from '../../main/learning/onlineImprover.ts';
import { ReactiveBaselinePolicy } from '../../main/learning/reactiveBaselinePolicy.ts';
import { SwitchableLink } from '../../main/links/switchableLink.ts';
import type { ControlLoop } from '../../main/loop/controlLoop.ts';
import { Memory } from '../../main/memory/memory.ts';
import { loadPerception } from '../../main/perception/onnxPerception.ts';
import { createSimLink, startRealtime } from '../../main/sim/lockstepLink.ts';
import { testEncoderManifest } from '../support/testEncoders.ts';

const CHROMIUM = process.env.REINS_CHROMIUM ?? '/usr/bin/chromium';
const SCREENSHOTS = fileURLToPath(new URL(process.env.REINS_UPDATE_SCREENSHOTS ? './screenshots/' : './artifacts/', import.meta.url));
const TOKEN = 'learning-test-token-0123456789';
/** The trend's stretches of policy driving: long enough for two takeovers on a loaded machine. */
const TREND_STRETCH_SECS = 5;

interface Core {
  server: ApiServer;
  loop: ControlLoop;
  learning: LiveLearning;
  improver: OnlineImprover;
  memoryUri: string;
  close(): Promise<void>;
}

async function startTeachingCore(dataFolder: string): Promise<Core> {
  const log = pino({ level: 'silent' });
  const simLink = createSimLink({});
  const stopSim = startRealtime(simLink);
  const link = new SwitchableLink(simLink);
  const perception = await loadPerception(testEncoderManifest());
  const initialPolicy = new ReactiveBaselinePolicy();
  // The heartbeat watchdog has its own tests; here a loaded two-core machine (Chromium, the sim and the
  // encoders side by side) must not turn autonomy off in the middle of the walk-through.
  const loop = await createControlLoop(link, { perception, policy: initialPolicy, watchdogTimeoutMs: 3000 });
  const connections = new RobotConnections(
    link,
    { robot: 'sim', opened: { link: simLink, close: async () => (stopSim(), await simLink.close()) } },
    { openRobot: () => Promise.reject(new Error('this test drives one robot')), driver: () => loop.driver() },
  );
  const memoryUri = join(dataFolder, 'memory');
  const stores = await openSessionStores(
    link,
    loop,
    perception,
    { recordings: join(dataFolder, 'recordings'), record: true, memory: memoryUri, remember: true },
    log,
  );
  const improver = new OnlineImprover({
    embeddingSize: perception.embeddingSize,
    limits: [0.5, 1.5],
    updateEverySecs: 3600,
    stepsPerUpdate: 5,
    learner: { hidden: 32, layers: 1, minTicksToFit: 10 },
  });
  const learning = await startLearning({
    loop,
    link,
    initialPolicy,
    improver,
    episodeId: stores.episodeId,
    ...(stores.recording ? { recording: stores.recording } : {}),
    memoryUri,
    ...(stores.memory ? { tickSpace: stores.memory.space } : {}),
    // Only when the operator asks: the test says when.
    slowPath: { firstAfterMs: 3_600_000, everyMs: 0, steps: 50 },
    topics: () => connections.topics(),
    log,
    session: { picker: { everySecs: 5, segmentTicks: 20, settleSecs: 5 }, minDrivingSecsForRate: 3, trend: { stretchSecs: TREND_STRETCH_SECS, keep: 500 } },
  });
  loop.start();
  const server = await startApiServer(new CockpitService(link, loop, Date.now, { connections, learning: learning.session }), {
    host: '127.0.0.1',
    port: 0,
    token: TOKEN,
    staticDir: 'renderer/dist',
    log,
  });
  return {
    server,
    loop,
    learning,
    improver,
    memoryUri,
    async close() {
      await loop.close();
      await learning.close();
      await closeStores(stores);
      await server.close();
      await link.close();
      await connections.close();
    },
  };
}

async function closeStores(stores: SessionStores): Promise<void> {
  await stores.close();
}

let dataFolder: string;
let core: Core;
let browser: Browser;
let page: Page;

const origin = () => `http://127.0.0.1:${core.server.port}`;
async function robotState(): Promise<CockpitState> {
  const response = await fetch(`${origin()}/api/status`, { headers: { authorization: `Bearer ${TOKEN}` } });
  return StatusResponse.parse(await response.json()).state;
}
const learningState = async () => (await robotState()).learning!;
const button = (name: string) => page.getByRole('button', { name, exact: true });
const toast = (text: string | RegExp) => page.locator('[role=status], [role=alert]').filter({ hasText: text });

async function screenshot(name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: `${SCREENSHOTS}${name}.png` });
}

beforeAll(async () => {
  dataFolder = mkdtempSync(join(tmpdir(), 'reins-learning-e2e-'));
  core = await startTeachingCore(dataFolder);
  browser = await chromium.launch({
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
  page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  page.on('pageerror', (error) => console.error('page error:', error));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await core?.close();
  rmSync(dataFolder, { recursive: true, force: true });
});

describe('teaching the robot from the cockpit', () => {
  it('counts a takeover once, and the learner’s new version drives', async () => {
    await page.goto(`${origin()}/#token=${TOKEN}`);
    await expect.poll(() => page.getByTestId('core-status').textContent(), { timeout: 10_000 }).toBe('Connected');
    await expect.poll(() => page.getByTestId('learning-panel').isVisible()).toBe(true);

    await button('Autonomy').click();
    await expect.poll(async () => (await robotState()).driver, { timeout: 5000 }).toBe('policy');
    await screenshot('learning-policy-driving');

    await button('Take over').click();
    await expect.poll(async () => (await robotState()).driver, { timeout: 5000 }).toBe('operator');
    // However long the takeover lasts, it is one intervention.
    await expect.poll(async () => (await learningState()).interventionActive, { timeout: 5000 }).toBe(true);
    const during = await learningState();
    expect(during.counts.interventions).toBe(1);
    await screenshot('learning-intervention');

    await button('Hand back').click();
    await expect.poll(async () => (await robotState()).driver, { timeout: 5000 }).toBe('policy');
    await expect.poll(async () => (await learningState()).interventionActive, { timeout: 5000 }).toBe(false);
    expect((await learningState()).counts.interventions).toBe(1);
    await expect.poll(() => page.getByTestId('intervention-count').textContent()).toBe('1');

    // The learner trains on the takeover and offers v2; on the simulated robot, it drives at once.
    // A round needs a few ticks to fit its statistics: step it until it has trained once.
    await expect
      .poll(
        async () => {
          await core.improver.update();
          return (await learningState()).versionCount;
        },
        { timeout: 10_000 },
      )
      .toBe(2);
    expect(core.improver.lastError).toBeUndefined();
    await expect.poll(async () => (await learningState()).drivingVersion, { timeout: 5000 }).toBe(2);
    expect((await robotState()).policyVersion).toBe('learned-1');
    await expect.poll(() => page.getByTestId('version-2').textContent()).toMatch(/v2.*learned-1.*driving/s);
    await expect.poll(() => toast(/v2 is ready and drives now/).count()).toBeGreaterThan(0);
    await screenshot('learning-new-version');
  }, 40_000);

  it('asks which of two recorded clips was better, and takes one answer', async () => {
    const question = page.getByTestId('preference-question');
    await expect
      .poll(() => question.isVisible(), { timeout: 30_000 })
      .toBe(true)
      .catch(async (error: unknown) => {
        const state = await robotState();
        throw new Error(
          `${(error as Error).message}: ${JSON.stringify({ driver: state.driver, autonomy: state.autonomy, alerts: state.alerts, learning: { ...state.learning, versions: undefined } })}`,
        );
      });
    const asked = (await learningState()).question!;
    expect(asked.left.endMs).toBeLessThan(asked.right.startMs);
    // Both clips are read back from the live recording: camera frames and the path.
    for (const side of ['left', 'right'] as const) {
      const response = await fetch(`${origin()}/api/clips/${asked.id}/${side}`, { headers: { authorization: `Bearer ${TOKEN}` } });
      const clip = (await response.json()) as { frames: unknown[]; path: unknown[] };
      expect(clip, JSON.stringify(clip).slice(0, 300)).toMatchObject({ frames: expect.any(Array), path: expect.any(Array) });
      expect(clip.frames.length).toBeGreaterThan(5);
      expect(clip.path.length).toBeGreaterThan(5);
      await expect.poll(() => page.getByTestId(`clip-${side}`).locator('img').count(), { timeout: 10_000 }).toBe(1);
    }
    const frame = await fetch(`${origin()}/api/clips/${asked.id}/left/frames/0`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(frame.headers.get('content-type')).toBe('image/png');
    expect((await fetch(`${origin()}/api/clips/${asked.id}/left`)).status).toBe(401);
    await screenshot('learning-question');

    await button('Left is better').click();
    await expect.poll(async () => (await learningState()).counts.answers, { timeout: 5000 }).toBe(1);
    await expect.poll(() => question.isVisible()).toBe(false);
    await expect.poll(() => toast('Recorded: left is better').count()).toBeGreaterThan(0);
    await expect.poll(() => page.getByTestId('answer-count').textContent()).toBe('1');
  }, 60_000);

  it('rates the moment with G, undoes it with U, and says when there is nothing left to undo', async () => {
    await page.locator('body').click({ position: { x: 5, y: 895 } });
    await page.keyboard.press('g');
    await expect.poll(async () => (await learningState()).counts.ratings, { timeout: 5000 }).toBe(1);
    await expect.poll(() => toast('Rated this moment good').count()).toBeGreaterThan(0);
    await expect.poll(() => page.getByTestId('rating-count').textContent()).toBe('1');
    await screenshot('learning-rated');

    await page.keyboard.press('u');
    await expect.poll(async () => (await learningState()).counts.ratings, { timeout: 5000 }).toBe(0);
    await expect.poll(() => toast(/Undid the good rating/).count()).toBeGreaterThan(0);
    // The answer is next in line for U, then nothing.
    await page.keyboard.press('u');
    await expect.poll(async () => (await learningState()).counts.answers, { timeout: 5000 }).toBe(0);
    await page.keyboard.press('u');
    await expect.poll(() => toast(/Nothing to undo/).count()).toBeGreaterThan(0);
    expect((await robotState()).estopped).toBe(false);
    await screenshot('learning-undone');

    // A past moment: chosen in the panel, rated with B, and the choice goes back to "now".
    const moment = page.getByRole('combobox', { name: 'Moment to rate' });
    await moment.selectOption({ label: '2 s ago' });
    await page.locator('body').click({ position: { x: 5, y: 895 } });
    await page.keyboard.press('b');
    await expect.poll(async () => (await learningState()).counts.ratings, { timeout: 5000 }).toBe(1);
    await expect.poll(() => toast(/Rated step \d+ bad/).count()).toBeGreaterThan(0);
    await expect.poll(() => moment.inputValue()).toBe('0');
    await page.keyboard.press('u');
    await expect.poll(async () => (await learningState()).counts.ratings, { timeout: 5000 }).toBe(0);
  }, 30_000);

  it('rolls back to the version that drove before', async () => {
    await button('Roll back').click();
    await expect.poll(async () => (await learningState()).drivingVersion, { timeout: 5000 }).toBe(1);
    expect((await robotState()).policyVersion).toBe('reactive-baseline-1');
    await expect.poll(() => page.getByTestId('version-1').textContent()).toMatch(/driving/);
    await expect.poll(() => button('Promote v2').isVisible()).toBe(true);
    // Each version shows its intervention rate once it has driven a few seconds.
    const v1 = async () => (await learningState()).versions.find((version) => version.number === 1)!;
    expect((await v1()).interventions).toBe(1);
    await expect
      .poll(async () => (await v1()).interventionRatePerMin ?? 0, { timeout: 10_000 })
      .toBeGreaterThan(0)
      .catch(async (error: unknown) => {
        const state = await robotState();
        throw new Error(
          `${(error as Error).message}: ${JSON.stringify({ driver: state.driver, autonomy: state.autonomy, versions: state.learning?.versions })}`,
        );
      });
    await expect.poll(() => page.getByTestId('version-1-rate').textContent()).toMatch(/\/min$/);
    await screenshot('learning-rolled-back');
  }, 30_000);

  it('retrains a fresh version from the whole memory when asked', async () => {
    const before = (await learningState()).versionCount;
    await button('Retrain from memory').click();
    await expect
      .poll(async () => (await learningState()).slowPath?.last?.message ?? '', { timeout: 20_000 })
      .toMatch(/^Retrained from memory as learned-\d+: \d+ ticks/);
    const learning = await learningState();
    expect(learning.slowPath).toMatchObject({ running: false, everySecs: 0, last: { ok: true } });
    expect(learning.versionCount).toBe(before + 1);
    const retrained = learning.versions.find((version) => version.number === before + 1)!;
    // It learned from the corrections the memory holds (the takeover; the answer and ratings were undone).
    expect(retrained.trainedOn).toMatchObject({ fromMemory: true, interventions: 1, preferences: 0, ratings: 0 });
    expect(retrained.trainedOn!.operatorTicks).toBeGreaterThan(0);
    await expect.poll(() => toast(/Retrained from memory as learned-/).count()).toBeGreaterThan(0);
    await expect.poll(() => page.getByTestId(`version-${before + 1}`).textContent()).toMatch(/memory/);
    await expect.poll(() => page.getByTestId('slow-path').textContent()).toMatch(/Retrained from memory/);
    await screenshot('learning-retrained-from-memory');
  }, 40_000);

  it('kept every accepted item in the memory’s corrections table', async () => {
    await core.learning.session.ledger.flush();
    const memory = await Memory.open({ uri: core.memoryUri, maintenance: { periodMs: 0 } });
    try {
      const kinds = (await memory.records.listCorrections()).map((row) => row.kind);
      expect(kinds).toEqual(['intervention', 'preference', 'rating', 'undo', 'undo', 'rating', 'undo']);
    } finally {
      await memory.close();
    }
  }, 30_000);

  it('shows the intervention rate falling as versions come', async () => {
    const stretches = async () => (await learningState()).interventionTrend.stretches;
    const driver = async () => (await robotState()).driver;
    /** One whole stretch of policy driving with `takeovers` takeovers in it, under the version driving now. */
    async function stretchWith(takeovers: number) {
      // Begin where a stretch begins: wait for the one under way to end.
      const under = (await stretches()).length;
      await expect.poll(async () => (await stretches()).length, { timeout: 4 * TREND_STRETCH_SECS * 1000 }).toBeGreaterThan(under);
      const index = (await stretches()).length;
      for (let i = 0; i < takeovers; i++) {
        // A takeover counts from the operator's first tick, and ends with the policy's next one.
        const active = async () => (await learningState()).interventionActive;
        await button('Take over').click();
        await expect.poll(active, { timeout: 5000 }).toBe(true);
        await button('Hand back').click();
        await expect.poll(active, { timeout: 5000 }).toBe(false);
        expect(await driver()).toBe('policy');
      }
      await expect.poll(async () => (await stretches()).length, { timeout: 4 * TREND_STRETCH_SECS * 1000 }).toBeGreaterThan(index);
      return { index, stretch: (await stretches())[index]! };
    }
    async function nextVersion(): Promise<number> {
      const count = (await learningState()).versionCount;
      await expect
        .poll(
          async () => {
            await core.improver.update();
            return (await learningState()).versionCount;
          },
          { timeout: 10_000 },
        )
        .toBe(count + 1);
      await expect.poll(async () => (await learningState()).drivingVersion, { timeout: 5000 }).toBe(count + 1);
      return count + 1;
    }

    expect(await driver()).toBe('policy');
    const first = await stretchWith(2);
    const second = { version: await nextVersion(), ...(await stretchWith(1)) };
    const third = { version: await nextVersion(), ...(await stretchWith(0)) };
    const shown = JSON.stringify((await stretches()).slice(first.index - 1));
    expect(first.stretch, shown).toMatchObject({ interventions: 2 });
    expect(first.stretch.firstVersion).toBe(first.stretch.lastVersion);
    expect(second.stretch).toMatchObject({ interventions: 1, firstVersion: second.version, lastVersion: second.version });
    expect(third.stretch).toMatchObject({ interventions: 0, firstVersion: third.version, lastVersion: third.version });
    expect(first.stretch.ratePerMin).toBeGreaterThan(second.stretch.ratePerMin);
    expect(second.stretch.ratePerMin).toBeGreaterThan(third.stretch.ratePerMin);

    // The panel draws one bar a stretch, its height the rate, and says what each bar was.
    const bars = page.getByTestId('trend-bar');
    await expect.poll(() => bars.count(), { timeout: 5000 }).toBeGreaterThan(third.index);
    const height = async (index: number) => Number(await bars.nth(index).getAttribute('height'));
    expect(await height(first.index)).toBeGreaterThan(await height(second.index));
    expect(await height(second.index)).toBeGreaterThan(await height(third.index));
    expect(await bars.nth(second.index).locator('title').textContent()).toBe(
      `v${second.version}: 1 intervention in ${TREND_STRETCH_SECS} s of driving (12.0/min)`,
    );
    await expect.poll(() => page.getByTestId('trend-summary').isVisible()).toBe(true);
    await page.getByTestId('intervention-trend').scrollIntoViewIfNeeded();
    await screenshot('learning-intervention-trend');
  }, 120_000);
});
