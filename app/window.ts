// The cockpit window and the guards every web contents gets, after Electron's security checklist:
// isolated and sandboxed renderers, a CSP on every response, no navigation away from the core, no
// new windows, no webviews, no permissions. Each function takes the Electron pieces it needs, so
// tests can hand it fakes.
import type { BrowserWindowConstructorOptions } from 'electron';

/**
 * The core's server sends the same policy with `connect-src 'self' ws: wss:` (main/api/server.ts);
 * here, where the core is always on loopback, sockets are narrowed to loopback. Kept as a copy on
 * purpose: app/ is compiled on its own and loads no TypeScript from main/ at run time.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "connect-src 'self' ws://127.0.0.1:* ws://localhost:*",
  "img-src 'self' data: blob:",
  "style-src 'self' 'unsafe-inline'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Dark, so the window never flashes white before the UI paints. */
export const WINDOW_BACKGROUND_COLOUR = '#101418';

export interface PreventableEvent {
  preventDefault(): void;
}

/** What the guards need of Electron's `WebContents`. */
export interface GuardableContents {
  on(event: 'will-navigate', listener: (event: PreventableEvent, url: string) => void): unknown;
  on(event: 'will-redirect', listener: (event: PreventableEvent, url: string) => void): unknown;
  on(event: 'will-attach-webview', listener: (event: PreventableEvent) => void): unknown;
  setWindowOpenHandler(handler: () => { action: 'deny' }): void;
}

/** What `guardAllWebContents` needs of Electron's `app`. */
export interface WebContentsSource {
  on(event: 'web-contents-created', listener: (event: unknown, contents: GuardableContents) => void): unknown;
}

interface ResponseHeadersDetails {
  responseHeaders?: Record<string, string[]>;
}

interface ResponseHeadersReply {
  responseHeaders: Record<string, string | string[]>;
}

/** What `hardenSession` needs of Electron's `Session`. */
export interface HardenableSession {
  webRequest: {
    onHeadersReceived(listener: (details: ResponseHeadersDetails, callback: (reply: ResponseHeadersReply) => void) => void): void;
  };
  setPermissionRequestHandler(handler: (contents: unknown, permission: string, callback: (granted: boolean) => void) => void): void;
  setPermissionCheckHandler(handler: () => boolean): void;
}

export interface MainWindowSpec {
  /** Absolute path of the compiled preload script (CommonJS: sandboxed preloads cannot be ESM). */
  preloadPath: string;
  /** False in packaged builds: no devtools there. */
  devTools: boolean;
}

export function mainWindowOptions(spec: MainWindowSpec) {
  return {
    title: 'Reins',
    width: 1440,
    height: 900,
    minWidth: 960,
    minHeight: 600,
    backgroundColor: WINDOW_BACKGROUND_COLOUR,
    autoHideMenuBar: false,
    webPreferences: {
      preload: spec.preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
      navigateOnDragDrop: false,
      spellcheck: false,
      devTools: spec.devTools,
    },
  } satisfies BrowserWindowConstructorOptions;
}

export type MainWindowOptions = ReturnType<typeof mainWindowOptions>;

export interface MainWindow {
  readonly webContents: GuardableContents;
}

/** Creates the cockpit window; its contents may only show pages from `allowedOrigin` (the core). */
export function createMainWindow<W extends MainWindow>(BrowserWindow: new (options: MainWindowOptions) => W, spec: MainWindowSpec, allowedOrigin: string): W {
  const mainWindow = new BrowserWindow(mainWindowOptions(spec));
  guardWebContents(mainWindow.webContents, allowedOrigin);
  return mainWindow;
}

const guarded = new WeakSet<GuardableContents>();

/** Keeps `contents` on `allowedOrigin`: other navigations, new windows and webviews are refused. */
export function guardWebContents(contents: GuardableContents, allowedOrigin: string): void {
  if (guarded.has(contents)) return;
  guarded.add(contents);
  const refuseForeign = (event: PreventableEvent, url: string): void => {
    if (originOf(url) !== allowedOrigin) event.preventDefault();
  };
  contents.on('will-navigate', refuseForeign);
  contents.on('will-redirect', refuseForeign);
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
}

/** Applies `guardWebContents` to every web contents the app creates from now on. */
export function guardAllWebContents(app: WebContentsSource, allowedOrigin: string): void {
  app.on('web-contents-created', (_event, contents) => guardWebContents(contents, allowedOrigin));
}

/** Adds the CSP to every response and refuses every permission (camera, notifications, …). */
export function hardenSession(session: HardenableSession): void {
  session.webRequest.onHeadersReceived((details, callback) => {
    callback({
      responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] },
    });
  });
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}
