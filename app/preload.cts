// Runs in the sandboxed renderer before the UI. It exposes one read-only value and no IPC: the UI
// talks to the core over its own authenticated WebSocket, never through the Electron main process.
// CommonJS (`.cts` → `.cjs`) because a sandboxed preload cannot be an ES module.
import electron = require('electron');

electron.contextBridge.exposeInMainWorld('reinsDesktop', Object.freeze({ platform: process.platform }));
