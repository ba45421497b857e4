// Builds the cockpit UI into renderer/dist. Paths are anchored to this file, so the config works from
// the repository root (`vite build --config renderer/vite.config.ts`) and from renderer/ alike.
import { fileURLToPath } from 'node:url';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vite';

const rendererDir = fileURLToPath(new URL('.', import.meta.url));
const repoRoot = fileURLToPath(new URL('..', import.meta.url));

export default defineConfig({
  root: rendererDir,
  // Relative asset URLs: the core serves dist/ at its root, Electron may load it from anywhere.
  base: './',
  // No svelte.config.js: the defaults (runes, TypeScript in <script lang="ts">) are what the UI uses.
  plugins: [svelte({ configFile: false })],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // three.js (the point-cloud panel's own chunk, loaded after the cockpit) is ~560 kB minified on its own.
    chunkSizeWarningLimit: 600,
  },
  // The 3D view's worker (panels/pointcloud/sceneWorker.ts) is a module worker with chunks of its own.
  worker: { format: 'es' },
  server: {
    host: '127.0.0.1',
    // The UI bundles main/core/contract.ts, which lives outside renderer/.
    fs: { allow: [repoRoot] },
  },
});
