// The desktop app's lifecycle: one instance, a hardened session, the core started as a utility
// process, one window on the core's UI, and the core stopped before the app exits.
import { app, BrowserWindow, dialog, Menu, session, utilityProcess } from 'electron';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CoreProcess, CoreStartError, coreLaunchFromArgv, type CoreExit } from './core.ts';
import { menuTemplate } from './menu.ts';
import { createMainWindow, guardAllWebContents, hardenSession } from './window.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PRELOAD_PATH = path.join(HERE, 'preload.cjs');
const CORE_CLI_PATH = path.join(packageRoot(HERE), 'main', 'cli', 'reins.mjs');

// Before `ready`, so every renderer is sandboxed whatever its webPreferences say.
app.enableSandbox();
if (app.requestSingleInstanceLock()) runCockpit();
else app.quit();

function runCockpit(): void {
  const devTools = !app.isPackaged;
  let core: CoreProcess | undefined;
  let cockpitWindow: BrowserWindow | undefined;
  let quitting = false;

  /** Tells the operator what went wrong, then exits with a failure status once the core is down. */
  const failAndExit = (title: string, detail: string): void => {
    if (quitting) return;
    quitting = true;
    dialog.showErrorBox(title, detail);
    void (core?.stop() ?? Promise.resolve()).finally(() => app.exit(1));
  };

  app.on('second-instance', () => {
    if (!cockpitWindow) return;
    if (cockpitWindow.isMinimized()) cockpitWindow.restore();
    cockpitWindow.focus();
  });
  // The cockpit is one window: closing it stops the core and the app, on macOS too.
  app.on('window-all-closed', () => app.quit());
  app.on('before-quit', () => {
    quitting = true;
  });
  app.on('will-quit', (event) => {
    if (!core?.running) return;
    // Let the core stop the robot and close its logs before the app goes.
    event.preventDefault();
    void core.stop().finally(() => app.quit());
  });

  void app
    .whenReady()
    .then(async () => {
      hardenSession(session.defaultSession);
      Menu.setApplicationMenu(Menu.buildFromTemplate(menuTemplate({ platform: process.platform, devTools })));

      core = CoreProcess.spawn((modulePath, args, options) => utilityProcess.fork(modulePath, args, options), {
        cliPath: CORE_CLI_PATH,
        launch: coreLaunchFromArgv(process.argv),
        onStderr: (text) => process.stderr.write(text),
      });
      const uiAddress = await core.ready;
      core.onUnexpectedExit((exit) => failAndExit('The Reins core stopped', describeExit(exit)));

      guardAllWebContents(app, uiAddress.origin);
      cockpitWindow = createMainWindow(BrowserWindow, { preloadPath: PRELOAD_PATH, devTools }, uiAddress.origin);
      cockpitWindow.on('closed', () => {
        cockpitWindow = undefined;
      });
      await cockpitWindow.loadURL(uiAddress.href);
    })
    .catch((error: unknown) => failAndExit('Reins could not start', describeStartFailure(error)));
}

/**
 * The folder holding Reins' package.json: the repository in development, resources/app when packaged.
 * Not app.getAppPath(): that is app/dist when Electron is started on app/dist/main.js, as `reins start` does.
 */
function packageRoot(fromDir: string): string {
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`Reins' package.json was not found above ${fromDir}`);
  }
}

function describeExit(exit: CoreExit): string {
  return `The core exited with code ${exit.code}.\n\n${describeLog(exit.stderrTail)}`;
}

function describeStartFailure(error: unknown): string {
  if (error instanceof CoreStartError) return `${error.message}.\n\n${describeLog(error.stderrTail)}`;
  return error instanceof Error ? error.message : String(error);
}

function describeLog(stderrTail: string): string {
  return stderrTail === '' ? 'The core wrote nothing to its log.' : `The core's last log lines:\n${stderrTail}`;
}
