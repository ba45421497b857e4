// A hand-written stand-in for the `electron` module, covering only what app/ uses. Tests load it with
// `vi.mock('electron', () => import('../test/fakes/electron.ts'))` or pass its pieces in directly.
// It records what the app asked for (window options, handlers, forks) and lets a test play the
// events Electron would emit. `resetFakeElectron()` gives each test a fresh one.
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import type { CoreChild, CoreForkOptions } from '../../app/core.ts';
import type { GuardableContents, HardenableSession, MainWindowOptions } from '../../app/window.ts';

/** An Electron event: listeners may call `preventDefault()`. */
export class FakeEvent {
  defaultPrevented = false;

  preventDefault(): void {
    this.defaultPrevented = true;
  }
}

export class FakeWebContents extends EventEmitter implements GuardableContents {
  windowOpenHandler: ((details: { url: string }) => { action: string }) | undefined;

  setWindowOpenHandler(handler: (details: { url: string }) => { action: string }): void {
    this.windowOpenHandler = handler;
  }

  /** Emits `eventName` as Electron would and returns the event, to see whether it was prevented. */
  dispatch(eventName: string, ...args: unknown[]): FakeEvent {
    const event = new FakeEvent();
    this.emit(eventName, event, ...args);
    return event;
  }

  /** What `window.open(url)` in the page would get. */
  openWindow(url: string): { action: string } {
    return this.windowOpenHandler?.({ url }) ?? { action: 'allow' };
  }
}

export class BrowserWindow extends EventEmitter {
  static readonly instances: BrowserWindow[] = [];
  readonly webContents = new FakeWebContents();
  readonly loadedUrls: string[] = [];
  minimized = false;
  focused = false;

  constructor(readonly options: MainWindowOptions) {
    super();
    BrowserWindow.instances.push(this);
    // Electron announces every new web contents to the app, main windows included.
    app.emit('web-contents-created', new FakeEvent(), this.webContents);
  }

  loadURL(url: string): Promise<void> {
    this.loadedUrls.push(url);
    return Promise.resolve();
  }

  isMinimized(): boolean {
    return this.minimized;
  }

  restore(): void {
    this.minimized = false;
  }

  focus(): void {
    this.focused = true;
  }
}

type HeadersListener = Parameters<HardenableSession['webRequest']['onHeadersReceived']>[0];
type PermissionRequestHandler = Parameters<HardenableSession['setPermissionRequestHandler']>[0];

export class FakeSession implements HardenableSession {
  headersListener: HeadersListener | undefined;
  permissionRequestHandler: PermissionRequestHandler | undefined;
  permissionCheckHandler: (() => boolean) | undefined;

  readonly webRequest = {
    onHeadersReceived: (listener: HeadersListener): void => {
      this.headersListener = listener;
    },
  };

  setPermissionRequestHandler(handler: PermissionRequestHandler): void {
    this.permissionRequestHandler = handler;
  }

  setPermissionCheckHandler(handler: () => boolean): void {
    this.permissionCheckHandler = handler;
  }

  /** Runs a response's headers through the installed listener; unchanged when there is none. */
  receiveHeaders(responseHeaders: Record<string, string[]>): Promise<Record<string, string | string[]>> {
    const listener = this.headersListener;
    if (!listener) return Promise.resolve(responseHeaders);
    return new Promise((resolve) => listener({ responseHeaders }, (reply) => resolve(reply.responseHeaders)));
  }

  /** What a page asking for `permission` gets; Electron grants it when no handler is installed. */
  requestPermission(permission: string): Promise<boolean> {
    const handler = this.permissionRequestHandler;
    if (!handler) return Promise.resolve(true);
    return new Promise((resolve) => handler(undefined, permission, resolve));
  }

  checkPermission(): boolean {
    return this.permissionCheckHandler?.() ?? true;
  }
}

export const session = { defaultSession: new FakeSession() };

class FakeApp extends EventEmitter {
  isPackaged = false;
  isReady = false;
  sandboxEnabled = false;
  sandboxEnabledBeforeReady = false;
  /** What `requestSingleInstanceLock()` answers: false plays a second instance. */
  singleInstanceLockAvailable = true;
  singleInstanceLockRequested = false;
  quitRequests = 0;
  /** Set when the app really ends: by `exit(code)`, or by a `quit()` nobody prevented (0). */
  exitCode: number | undefined;
  #ready = readySignal();

  /** Back to a freshly started, not yet ready app with no listeners. */
  reset(): void {
    this.removeAllListeners();
    this.isPackaged = false;
    this.isReady = false;
    this.sandboxEnabled = false;
    this.sandboxEnabledBeforeReady = false;
    this.singleInstanceLockAvailable = true;
    this.singleInstanceLockRequested = false;
    this.quitRequests = 0;
    this.exitCode = undefined;
    this.#ready = readySignal();
  }

  /** Plays Electron's `ready`. */
  markReady(): void {
    this.isReady = true;
    this.emit('ready');
    this.#ready.resolve();
  }

  whenReady(): Promise<void> {
    return this.#ready.promise;
  }

  enableSandbox(): void {
    this.sandboxEnabled = true;
    this.sandboxEnabledBeforeReady = !this.isReady;
  }

  requestSingleInstanceLock(): boolean {
    this.singleInstanceLockRequested = true;
    return this.singleInstanceLockAvailable;
  }

  getAppPath(): string {
    return '/opt/reins';
  }

  quit(): void {
    this.quitRequests += 1;
    const beforeQuit = new FakeEvent();
    this.emit('before-quit', beforeQuit);
    if (beforeQuit.defaultPrevented) return;
    const willQuit = new FakeEvent();
    this.emit('will-quit', willQuit);
    if (willQuit.defaultPrevented) return;
    this.exitCode ??= 0;
    this.emit('quit', new FakeEvent(), 0);
  }

  exit(code = 0): void {
    this.exitCode ??= code;
  }
}

function readySignal(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

export const app = new FakeApp();

export class FakeUtilityProcess extends EventEmitter implements CoreChild {
  pid: number | undefined = 4242;
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  killRequests = 0;
  /** False plays a core that ignores SIGTERM. */
  exitsOnKill = true;

  constructor(
    readonly modulePath: string,
    readonly args: string[],
    readonly options: CoreForkOptions,
  ) {
    super();
  }

  /** Writes to the core's stdout, as the core would. */
  print(text: string): void {
    this.stdout.write(text);
  }

  /** Writes to the core's stderr, as the core's logger would. */
  log(text: string): void {
    this.stderr.write(text);
  }

  kill(): boolean {
    this.killRequests += 1;
    if (this.exitsOnKill) setImmediate(() => this.exit(143));
    return true;
  }

  /** Plays the core's process ending: its pipes close, then `exit` is emitted. */
  exit(code: number): void {
    if (this.pid === undefined) return;
    this.pid = undefined;
    this.stdout.end();
    this.stderr.end();
    this.emit('exit', code);
  }
}

export const utilityProcess = {
  forks: [] as FakeUtilityProcess[],
  fork(modulePath: string, args: string[] = [], options: CoreForkOptions): FakeUtilityProcess {
    const child = new FakeUtilityProcess(modulePath, args, options);
    this.forks.push(child);
    return child;
  },
};

export const dialog = {
  errors: [] as { title: string; content: string }[],
  showErrorBox(title: string, content: string): void {
    this.errors.push({ title, content });
  },
};

export const Menu = {
  applicationMenu: undefined as { template: unknown[] } | undefined,
  buildFromTemplate(template: unknown[]): { template: unknown[] } {
    return { template };
  },
  setApplicationMenu(menu: { template: unknown[] } | null): void {
    this.applicationMenu = menu ?? undefined;
  },
};

export const contextBridge = {
  exposed: new Map<string, unknown>(),
  exposeInMainWorld(key: string, api: unknown): void {
    this.exposed.set(key, api);
  },
};

/** Forgets every window, fork, handler and dialog, so the next test starts from a fresh Electron. */
export function resetFakeElectron(): void {
  BrowserWindow.instances.length = 0;
  session.defaultSession = new FakeSession();
  app.reset();
  utilityProcess.forks.length = 0;
  dialog.errors.length = 0;
  Menu.applicationMenu = undefined;
  contextBridge.exposed.clear();
}
