// End to end: the operator rearranges and resizes the panels, the layout survives a reload, a corrupt
// saved layout falls back to the default, and "Reset layout" puts everything back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCockpitBrowser, type CockpitBrowser } from '../support/cockpitBrowser.ts';

let cockpit: CockpitBrowser;

beforeAll(async () => {
  cockpit = await openCockpitBrowser();
}, 60_000);

afterAll(async () => {
  expect(await cockpit?.close()).toBe(0);
});

const PANELS = ['Camera', 'LiDAR', '3D view', 'Status', 'Drive'] as const;
const SEPARATORS = ['Resize top panels', 'Resize top right panels', 'Resize bottom panel', 'Resize right column'] as const;

const region = (name: string) => cockpit.page.getByRole('region', { name, exact: true });
const separator = (name: string) => cockpit.page.getByRole('separator', { name, exact: true });

/** What an operator would notice of the layout: where each panel sits, its size, and each split. */
async function layoutOnScreen() {
  const panels: Record<string, { slot: string | null; box: { x: number; y: number; width: number; height: number } | null }> = {};
  for (const name of PANELS) {
    const box = await region(name).boundingBox();
    panels[name] = { slot: await region(name).getAttribute('data-slot'), box: box && roundBox(box) };
  }
  const splits: Record<string, string | null> = {};
  for (const name of SEPARATORS) splits[name] = await separator(name).getAttribute('aria-valuenow');
  return { panels, splits };
}

function roundBox(box: { x: number; y: number; width: number; height: number }) {
  return { x: Math.round(box.x), y: Math.round(box.y), width: Math.round(box.width), height: Math.round(box.height) };
}

async function openAndWaitForConnection(): Promise<void> {
  await expect.poll(() => cockpit.page.getByTestId('core-status').textContent(), { timeout: 10_000 }).toBe('Connected');
  await expect.poll(() => region('Drive').getAttribute('data-slot')).not.toBeNull();
}

describe('the panel layout', () => {
  let defaultLayout: Awaited<ReturnType<typeof layoutOnScreen>>;

  it('rearranges and resizes the panels, and restores them after a reload', async () => {
    const { page } = cockpit;
    await page.goto(cockpit.core.uiUrl);
    await openAndWaitForConnection();
    defaultLayout = await layoutOnScreen();
    expect(defaultLayout.panels['Camera']!.slot).toBe('topLeft');
    expect(defaultLayout.panels['Status']!.slot).toBe('right');
    expect(defaultLayout.panels['3D view']!.slot).toBe('topRight');

    // Rearrange: the camera goes to the right column and the status panel takes its place.
    await page.getByRole('combobox', { name: 'Camera position' }).selectOption({ label: 'Right' });
    await expect.poll(() => region('Camera').getAttribute('data-slot')).toBe('right');
    expect(await region('Status').getAttribute('data-slot')).toBe('topLeft');
    const camera = (await region('Camera').boundingBox())!;
    const status = (await region('Status').boundingBox())!;
    expect(camera.x).toBeGreaterThan(status.x + status.width);

    // Resize with the keyboard: the right column widens by three steps.
    const rail = separator('Resize right column');
    await rail.focus();
    for (let press = 0; press < 3; press++) await page.keyboard.press('ArrowLeft');
    await expect.poll(() => rail.getAttribute('aria-valuenow')).toBe('69');
    expect((await region('Camera').boundingBox())!.width).toBeGreaterThan(camera.width + 40);

    // Resize by dragging: the bottom panel grows by about 120 px.
    const rows = separator('Resize bottom panel');
    const handle = (await rows.boundingBox())!;
    const driveHeight = (await region('Drive').boundingBox())!.height;
    await page.mouse.move(handle.x + handle.width / 2, handle.y + handle.height / 2);
    await page.mouse.down();
    await page.mouse.move(handle.x + handle.width / 2, handle.y + handle.height / 2 - 120, { steps: 6 });
    await page.mouse.up();
    await expect.poll(async () => (await region('Drive').boundingBox())!.height).toBeGreaterThan(driveHeight + 100);

    const changed = await layoutOnScreen();
    expect(changed).not.toEqual(defaultLayout);
    await cockpit.screenshot('layout-rearranged');

    await page.reload();
    await openAndWaitForConnection();
    expect(await layoutOnScreen()).toEqual(changed);
    await cockpit.screenshot('layout-restored-after-reload');
  }, 30_000);

  it('falls back to the default layout, with a warning, when the saved one is corrupt', async () => {
    const { page } = cockpit;
    const warnings: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'warning') warnings.push(message.text());
    });
    await page.evaluate(() => localStorage.setItem('reins.layout', '{"version":1,"slots":{"topLeft":"camera"'));
    await page.reload();
    await openAndWaitForConnection();
    expect(await layoutOnScreen()).toEqual(defaultLayout);
    expect(warnings.some((warning) => /saved layout .*default layout/.test(warning))).toBe(true);
  }, 30_000);

  it('"Reset layout" restores the default layout, also after a reload', async () => {
    const { page } = cockpit;
    await page.getByRole('combobox', { name: 'Drive position' }).selectOption({ label: 'Top left' });
    await separator('Resize top panels').focus();
    await page.keyboard.press('End');
    await expect.poll(() => region('Drive').getAttribute('data-slot')).toBe('topLeft');
    expect(await layoutOnScreen()).not.toEqual(defaultLayout);

    await page.getByRole('button', { name: 'Reset layout' }).click();
    await expect.poll(layoutOnScreen).toEqual(defaultLayout);
    await cockpit.screenshot('layout-reset');
    await page.reload();
    await openAndWaitForConnection();
    expect(await layoutOnScreen()).toEqual(defaultLayout);
  }, 30_000);
});
