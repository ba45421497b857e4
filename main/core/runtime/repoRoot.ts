// The installed tree's root, for what the core loads from it at run time (the built UI, the Electron
// binary in node_modules): found from this file's own place, whatever the working folder.
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
