// On Node 20 a worker thread starts without its parent's module hooks, so it cannot load learnerWorker.ts
// by itself, whether the parent is `reins` (tsx registered in main/cli/reins.mjs) or vitest (vite's
// transform, which workers do not share). This plain module registers tsx's ESM loader in the worker
// and then imports the TypeScript body.
import { register } from 'tsx/esm/api';

register();
await import('./learnerWorker.ts');
