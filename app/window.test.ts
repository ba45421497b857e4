import { beforeEach, describe, expect, it } from 'vitest';
import { BrowserWindow, FakeEvent, FakeSession, FakeWebContents, app, resetFakeElectron } from '../test/fakes/electron.ts';
import { CONTENT_SECURITY_POLICY, createMainWindow, guardAllWebContents, guardWebContents, hardenSession } from './window.ts';

const CORE_ORIGIN = 'http://127.0.0.1:41234';
const spec = { preloadPath: '/opt/reins/app/dist/preload.cjs', devTools: false };

beforeEach(() => resetFakeElectron());

describe('the main window', () => {
  it('runs the UI isolated and sandboxed, without Node', () => {
    const window = createMainWindow(BrowserWindow, spec, CORE_ORIGIN);
    const prefs = window.options.webPreferences;

    expect(prefs).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
      preload: spec.preloadPath,
    });
    expect(prefs).not.toHaveProperty('enableRemoteModule');
  });

  it('is titled Reins on a dark background, with devtools only when asked for', () => {
    const packaged = createMainWindow(BrowserWindow, spec, CORE_ORIGIN);
    const development = createMainWindow(BrowserWindow, { ...spec, devTools: true }, CORE_ORIGIN);

    expect(packaged.options.title).toBe('Reins');
    expect(luminance(packaged.options.backgroundColor)).toBeLessThan(0.2);
    expect(packaged.options.webPreferences.devTools).toBe(false);
    expect(development.options.webPreferences.devTools).toBe(true);
  });

  it('is guarded even before any app-wide guard is installed', () => {
    const window = createMainWindow(BrowserWindow, spec, CORE_ORIGIN);

    expect(window.webContents.dispatch('will-navigate', 'https://example.com/').defaultPrevented).toBe(true);
    expect(window.webContents.openWindow('https://example.com/')).toEqual({ action: 'deny' });
  });
});

describe('guarded web contents', () => {
  let contents: FakeWebContents;
  beforeEach(() => {
    contents = new FakeWebContents();
    guardWebContents(contents, CORE_ORIGIN);
  });

  it.each(['https://example.com/', 'http://127.0.0.1:41235/', 'http://localhost:41234/', 'file:///etc/passwd', 'about:blank', 'not a url'])(
    'refuses to navigate to %s',
    (url) => {
      expect(contents.dispatch('will-navigate', url).defaultPrevented).toBe(true);
      expect(contents.dispatch('will-redirect', url).defaultPrevented).toBe(true);
    },
  );

  it('lets the UI navigate within the core', () => {
    expect(contents.dispatch('will-navigate', `${CORE_ORIGIN}/#token=abc`).defaultPrevented).toBe(false);
    expect(contents.dispatch('will-navigate', `${CORE_ORIGIN}/replay?file=a.mcap`).defaultPrevented).toBe(false);
    expect(contents.dispatch('will-redirect', `${CORE_ORIGIN}/index.html`).defaultPrevented).toBe(false);
  });

  it('denies window.open, even to the core', () => {
    expect(contents.openWindow('https://example.com/')).toEqual({ action: 'deny' });
    expect(contents.openWindow(`${CORE_ORIGIN}/`)).toEqual({ action: 'deny' });
  });

  it('prevents webview attachment', () => {
    expect(contents.dispatch('will-attach-webview', {}, {}).defaultPrevented).toBe(true);
  });

  it('is guarded once however often it is passed in', () => {
    guardWebContents(contents, CORE_ORIGIN);
    expect(contents.listenerCount('will-navigate')).toBe(1);
  });
});

describe('the app-wide guard', () => {
  it('guards every web contents the app creates later', () => {
    guardAllWebContents(app, CORE_ORIGIN);
    const contents = new FakeWebContents();
    app.emit('web-contents-created', new FakeEvent(), contents);

    expect(contents.dispatch('will-navigate', 'https://example.com/').defaultPrevented).toBe(true);
    expect(contents.dispatch('will-navigate', `${CORE_ORIGIN}/`).defaultPrevented).toBe(false);
    expect(contents.openWindow('https://example.com/')).toEqual({ action: 'deny' });
    expect(contents.dispatch('will-attach-webview').defaultPrevented).toBe(true);
  });
});

describe('the hardened session', () => {
  let session: FakeSession;
  beforeEach(() => {
    session = new FakeSession();
    hardenSession(session);
  });

  it('adds the CSP to every response and keeps its other headers', async () => {
    const headers = await session.receiveHeaders({ 'Content-Type': ['text/html'] });

    expect(headers['Content-Type']).toEqual(['text/html']);
    expect(headers['Content-Security-Policy']).toEqual([CONTENT_SECURITY_POLICY]);
  });

  it('allows scripts only from the core and sockets only to loopback', () => {
    const directives = new Map(
      CONTENT_SECURITY_POLICY.split(';').map((directive) => {
        const [name = '', ...sources] = directive.trim().split(/\s+/);
        return [name, sources] as const;
      }),
    );

    expect(directives.get('default-src')).toEqual(["'self'"]);
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('connect-src')).toEqual(["'self'", 'ws://127.0.0.1:*', 'ws://localhost:*']);
    expect(directives.get('object-src')).toEqual(["'none'"]);
    expect(directives.get('base-uri')).toEqual(["'none'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
  });

  it.each(['media', 'geolocation', 'notifications', 'clipboard-read', 'openExternal'])('refuses the %s permission', async (permission) => {
    expect(await session.requestPermission(permission)).toBe(false);
  });

  it('answers permission checks with no', () => {
    expect(session.checkPermission()).toBe(false);
  });
});

/** Relative luminance of a `#rrggbb` colour, 0 (black) to 1 (white). */
function luminance(hex: string): number {
  const [r = 0, g = 0, b = 0] = [1, 3, 5].map((start) => Number.parseInt(hex.slice(start, start + 2), 16) / 255);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
