// End to end, on the simulated robot: who drives. With autonomy on, driving with W takes over from the
// policy and "Hand back" returns control; Space e-stops even while a button has focus, without
// activating that button; and only holding "Release E-stop" for a second releases it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ESTOP_RELEASE_HOLD_MS } from '../../main/core/contract.ts';
import { openCockpitBrowser, type CockpitBrowser } from '../support/cockpitBrowser.ts';

let cockpit: CockpitBrowser;

beforeAll(async () => {
  // The heartbeat watchdog has its own tests (test/faults/tabClosedWhileDriving.test.ts and the loop's).
  // Here headless Chromium, the core with its learners and the sim share two cores: a late heartbeat
  // turned autonomy off mid-walk in CI (2 of 3 fresh-clone runs), so the watchdog gets 3 s.
  cockpit = await openCockpitBrowser(['--watchdog-ms', '3000']);
}, 60_000);

afterAll(async () => {
  expect(await cockpit?.close()).toBe(0);
});

const button = (name: string) => cockpit.page.getByRole('button', { name, exact: true });
const shownDriver = () => cockpit.page.getByTestId('driver').textContent();

describe('taking over and handing back', () => {
  it('takes over from the policy by driving, and hands back with "Hand back"', async () => {
    const { page, robotState } = cockpit;
    await page.goto(cockpit.core.uiUrl);
    await expect.poll(() => page.getByTestId('core-status').textContent(), { timeout: 10_000 }).toBe('Connected');

    await button('Autonomy').click();
    await expect.poll(() => button('Autonomy').getAttribute('aria-pressed')).toBe('true');
    await expect.poll(async () => (await robotState()).driver, { timeout: 5000 }).toBe('policy');
    await expect.poll(shownDriver).toBe('Policy');
    await cockpit.screenshot('cockpit-policy-driving');

    // Driving with W while the policy drives takes over, and the take-over stays after W is let go.
    await button('Drive: W A S D').focus();
    await page.keyboard.down('w');
    await expect.poll(async () => (await robotState()).driver, { timeout: 5000 }).toBe('operator');
    await page.keyboard.up('w');
    const tookOver = await robotState();
    expect(tookOver).toMatchObject({ autonomy: true, tookOver: true, driver: 'operator' });
    await expect.poll(shownDriver).toMatch(/^Operator · took over$/);
    await cockpit.screenshot('cockpit-took-over');

    await button('Hand back').click();
    await expect.poll(async () => (await robotState()).driver, { timeout: 5000 }).toBe('policy');
    expect((await robotState()).tookOver).toBe(false);
    await expect.poll(shownDriver).toBe('Policy');
    await cockpit.screenshot('cockpit-handed-back');
  }, 30_000);
});

describe('E-stop with a button focused, and release by holding', () => {
  it('e-stops on Space without activating the focused "Take over" button', async () => {
    const { page, robotState } = cockpit;
    const takeOver = button('Take over');
    // Count activations of the button itself, whatever the core makes of them.
    await takeOver.evaluate((element) => {
      element.dataset['clicks'] = '0';
      element.addEventListener('click', () => (element.dataset['clicks'] = String(Number(element.dataset['clicks']) + 1)));
    });
    expect((await robotState()).tookOver).toBe(false);
    await takeOver.focus();
    await page.keyboard.press('Space');

    await expect.poll(async () => (await robotState()).estopped, { timeout: 5000 }).toBe(true);
    const stopped = await robotState();
    expect(stopped).toMatchObject({ driver: 'estopped', tookOver: false });
    expect(await takeOver.getAttribute('data-clicks')).toBe('0');
    expect(await takeOver.evaluate((element) => element === document.activeElement)).toBe(true);
    await expect.poll(shownDriver).toBe('Stopped');
    await expect.poll(() => button('Release E-stop').isVisible()).toBe(true);
    await cockpit.screenshot('cockpit-estopped-button-focused');
  }, 30_000);

  it('releases the e-stop only after "Release E-stop" is held for a second', async () => {
    const { page, robotState } = cockpit;
    const release = button('Release E-stop');
    const box = await release.boundingBox();
    if (!box) throw new Error('"Release E-stop" has no box');
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    const pressedAtMs = Date.now();
    await page.mouse.down();

    await expect.poll(() => page.getByText('Keep holding…').isVisible()).toBe(true);
    expect((await robotState()).estopped).toBe(true);
    await cockpit.screenshot('cockpit-releasing-estop');

    await expect.poll(async () => (await robotState()).estopped, { timeout: 5000, interval: 50 }).toBe(false);
    expect(Date.now() - pressedAtMs).toBeGreaterThanOrEqual(ESTOP_RELEASE_HOLD_MS);
    await page.mouse.up();

    // Released means idle, with autonomy off until the operator turns it on again.
    expect(await robotState()).toMatchObject({ estopped: false, driver: 'idle', autonomy: false });
    await expect.poll(() => release.isVisible()).toBe(false);
    await expect.poll(shownDriver).toBe('Idle');
    await cockpit.screenshot('cockpit-estop-released');
  }, 30_000);
});
