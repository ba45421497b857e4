import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { BrowserWindow, FakeUtilityProcess } from '../test/fakes/electron.ts';

// app/main.ts runs at import, like Electron's entry point, so each test loads it afresh. The mocked
// `electron` outlives resetModules; the test takes it from there and resets it.
vi.mock('electron', () => import('../test/fakes/electron.ts'));

type FakeElectron = typeof import('../test/fakes/electron.ts');
let electron: FakeElectron;
const savedArgv = process.argv;

beforeEach(async () => {
  vi.resetModules();
  electron = (await import('electron')) as unknown as FakeElectron;
  electron.resetFakeElectron();
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
});

afterEach(() => {
  process.argv = savedArgv;
  vi.restoreAllMocks();
});

/** Waits for async effects (stream reads, promise chains) without the default 50 ms polling. */
function eventually(assertion: () => void): Promise<void> {
  return vi.waitFor(assertion, { interval: 2, timeout: 2_000 });
}

/** Loads app/main.ts as Electron would, with `argv` as the app's command line. */
async function launchApp(argv: string[] = ['/usr/bin/electron', '.']): Promise<void> {
  process.argv = argv;
  await import('./main.ts');
}

async function readyApp(argv?: string[]): Promise<FakeUtilityProcess> {
  await launchApp(argv);
  electron.app.markReady();
  await eventually(() => expect(electron.utilityProcess.forks).toHaveLength(1));
  return electron.utilityProcess.forks[0] as FakeUtilityProcess;
}

function tokenOf(core: FakeUtilityProcess): string {
  return core.args.find((arg) => arg.startsWith('--token='))?.slice('--token='.length) ?? '';
}

async function serve(core: FakeUtilityProcess): Promise<BrowserWindow> {
  core.print(`Reins UI: http://127.0.0.1:41234/#token=${tokenOf(core)}\n`);
  await eventually(() => expect(electron.BrowserWindow.instances[0]?.loadedUrls).toHaveLength(1));
  return electron.BrowserWindow.instances[0] as BrowserWindow;
}

describe('starting the desktop app', () => {
  it('enables the sandbox before ready and takes the single-instance lock', async () => {
    await launchApp();

    expect(electron.app.sandboxEnabled).toBe(true);
    expect(electron.app.sandboxEnabledBeforeReady).toBe(true);
    expect(electron.app.singleInstanceLockRequested).toBe(true);
  });

  it('leaves it to the running instance when it is the second', async () => {
    electron.app.singleInstanceLockAvailable = false;
    await launchApp();
    electron.app.markReady();
    await nextTurn();

    expect(electron.app.quitRequests).toBe(1);
    expect(electron.utilityProcess.forks).toHaveLength(0);
  });

  it('hardens the session and sets the menu once ready', async () => {
    await readyApp();

    const headers = await electron.session.defaultSession.receiveHeaders({});
    expect(headers['Content-Security-Policy']).toEqual([expect.stringContaining("script-src 'self'")]);
    expect(await electron.session.defaultSession.requestPermission('media')).toBe(false);
    expect(electron.Menu.applicationMenu?.template.length).toBeGreaterThan(0);
  });

  it('forks the core CLI with a generated token and the robot passed after --', async () => {
    const core = await readyApp(['/usr/bin/electron', 'app/dist/main.js', '--', '--robot', 'ws://robot.local:9090']);

    expect(core.modulePath).toBe(path.resolve(import.meta.dirname, '..', 'main', 'cli', 'reins.mjs'));
    expect(core.args).toEqual(['start', '--headless', '--port=0', `--token=${tokenOf(core)}`, '--robot=ws://robot.local:9090']);
    expect(tokenOf(core)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(core.options).toEqual({ stdio: 'pipe', serviceName: 'Reins core' });
  });

  it('opens one guarded, sandboxed window on the address the core prints', async () => {
    const core = await readyApp();
    const window = await serve(core);

    expect(electron.BrowserWindow.instances).toHaveLength(1);
    expect(window.loadedUrls).toEqual([`http://127.0.0.1:41234/#token=${tokenOf(core)}`]);
    expect(window.options.webPreferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false });
    expect(window.options.webPreferences.preload).toMatch(/[/\\]preload\.cjs$/);
    expect(window.webContents.dispatch('will-navigate', 'https://example.com/').defaultPrevented).toBe(true);
    expect(window.webContents.dispatch('will-navigate', 'http://127.0.0.1:41234/').defaultPrevented).toBe(false);
    expect(window.webContents.openWindow('https://example.com/')).toEqual({ action: 'deny' });
  });

  it('guards web contents created later, such as devtools or popups', async () => {
    const core = await readyApp();
    await serve(core);
    const later = new electron.BrowserWindow(electron.BrowserWindow.instances[0]!.options);

    expect(later.webContents.dispatch('will-navigate', 'https://example.com/').defaultPrevented).toBe(true);
    expect(later.webContents.dispatch('will-attach-webview').defaultPrevented).toBe(true);
  });
});

describe('a second launch', () => {
  it('brings the open cockpit to the front instead of starting another', async () => {
    const core = await readyApp();
    const window = await serve(core);
    window.minimized = true;

    electron.app.emit('second-instance', {}, ['/usr/bin/electron', '.'], '/home/operator');

    expect(window.isMinimized()).toBe(false);
    expect(window.focused).toBe(true);
    expect(electron.utilityProcess.forks).toHaveLength(1);
  });
});

describe('when the core fails', () => {
  it('shows its last log lines and exits with failure when it dies before serving', async () => {
    const core = await readyApp();
    core.log('Error: robot.local: no such host\n');
    core.exit(1);

    await eventually(() => expect(electron.app.exitCode).toBe(1));
    expect(electron.dialog.errors).toHaveLength(1);
    expect(electron.dialog.errors[0]?.content).toMatch(/exited \(code 1\)/);
    expect(electron.dialog.errors[0]?.content).toContain('Error: robot.local: no such host');
    expect(electron.BrowserWindow.instances).toHaveLength(0);
  });

  it('shows its last log lines and exits with failure when it dies while the cockpit is open', async () => {
    const core = await readyApp();
    await serve(core);
    core.log('RangeError: invalid array length\n');
    core.exit(1);

    await eventually(() => expect(electron.app.exitCode).toBe(1));
    expect(electron.dialog.errors).toEqual([{ title: 'The Reins core stopped', content: expect.stringContaining('RangeError: invalid array length') }]);
  });
});

describe('quitting', () => {
  it('stops the core before the app exits, and does not call that a failure', async () => {
    const core = await readyApp();
    await serve(core);

    electron.app.quit();
    expect(electron.app.exitCode).toBeUndefined();
    expect(core.killRequests).toBe(1);

    await eventually(() => expect(electron.app.exitCode).toBe(0));
    expect(electron.dialog.errors).toEqual([]);
  });

  it('quits when the window is closed, on every platform', async () => {
    const core = await readyApp();
    await serve(core);

    electron.app.emit('window-all-closed');

    await eventually(() => expect(electron.app.exitCode).toBe(0));
    expect(core.killRequests).toBe(1);
  });

  it('stops a core that is still starting', async () => {
    const core = await readyApp();

    electron.app.quit();

    await eventually(() => expect(electron.app.exitCode).toBe(0));
    expect(core.killRequests).toBe(1);
    expect(electron.dialog.errors).toEqual([]);
  });
});
