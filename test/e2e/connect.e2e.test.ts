// End to end, on the simulated robot: the connection manager. A wrong rosbridge URL reads as a clear
// error while the robot already attached keeps streaming; picking "Simulated robot" switches to a
// fresh simulated robot, whose streams flow. The dialog is driven from the keyboard.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCockpitBrowser, type CockpitBrowser } from '../support/cockpitBrowser.ts';

let cockpit: CockpitBrowser;

beforeAll(async () => {
  cockpit = await openCockpitBrowser();
}, 60_000);

afterAll(async () => {
  expect(await cockpit?.close()).toBe(0);
});

const dialog = () => cockpit.page.getByRole('dialog', { name: 'Connect robot' });
const connectionText = () => dialog().getByTestId('connection-status').textContent();

describe('connecting a robot', () => {
  it('explains a wrong URL in words, then connects the simulated robot in one click', async () => {
    const { page, robotState } = cockpit;
    await page.goto(cockpit.core.uiUrl);
    await expect.poll(() => page.getByTestId('core-status').textContent(), { timeout: 10_000 }).toBe('Connected');
    const firstSim = await robotState();
    expect(firstSim.connection).toMatchObject({ robot: 'sim', status: 'connected', command: { topic: '/cmd_vel', type: 'geometry_msgs/Twist' } });

    await page.getByRole('button', { name: 'Connect robot', exact: true }).click();
    await expect.poll(() => dialog().isVisible()).toBe(true);
    const topicFields = dialog().getByRole('group', { name: 'Topic map' }).getByRole('textbox');
    expect(await topicFields.evaluateAll((inputs) => inputs.map((input) => (input as HTMLInputElement).value))).toEqual([
      '/camera/image_raw',
      '/scan',
      '/joint_states',
      '/imu',
      '/odom',
      '/cmd_vel',
    ]);

    // Keyboard only: the URL field, then Enter submits the form ("Connect").
    await dialog().getByLabel('Robot address').focus();
    await page.keyboard.type('ws://127.0.0.1:1');
    await dialog().getByRole('button', { name: 'Connect', exact: true }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(connectionText, { timeout: 3000 }).toBe('Connecting to ws://127.0.0.1:1…');
    await expect
      .poll(connectionText, { timeout: 15_000 })
      .toMatch(/^Could not connect to ws:\/\/127\.0\.0\.1:1: nothing answered at ws:\/\/127\.0\.0\.1:1 within 10 s\. .*rosbridge_server/);
    // The robot that was attached is still there, streaming.
    const afterFailure = await robotState();
    expect(afterFailure).toMatchObject({ presence: 'present', connection: { robot: 'ws://127.0.0.1:1', status: 'failed' } });
    expect(afterFailure.streams.every((stream) => !stream.stale)).toBe(true);
    await cockpit.screenshot('connect-wrong-url');

    // Escape inside the dialog still e-stops, and the dialog stays open.
    await dialog().getByLabel('Robot address').focus();
    await page.keyboard.press('Escape');
    await expect.poll(async () => (await robotState()).estopped, { timeout: 5000 }).toBe(true);
    expect(await dialog().isVisible()).toBe(true);

    await dialog().getByRole('button', { name: 'Simulated robot', exact: true }).focus();
    await page.keyboard.press('Enter');
    // The line also names the command topic's type and the robot's clock offset once the link knows them.
    await expect.poll(connectionText, { timeout: 30_000 }).toMatch(/^Connected to sim — commands on \/cmd_vel as geometry_msgs\/Twist/);
    await expect.poll(async () => (await robotState()).streams.every((stream) => !stream.stale && stream.rateHz > 0), { timeout: 10_000 }).toBe(true);
    const switched = await robotState();
    expect(switched).toMatchObject({ presence: 'present', simulated: true, estopped: true, connection: { robot: 'sim', status: 'connected' } });
    await cockpit.screenshot('connect-simulated-robot');

    await dialog().getByRole('button', { name: 'Close', exact: true }).click();
    await expect.poll(() => dialog().count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Connect robot', exact: true }).evaluate((element) => element === document.activeElement)).toBe(true);
  }, 90_000);
});
