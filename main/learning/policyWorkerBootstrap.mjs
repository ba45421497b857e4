// On Node 20 a worker thread starts without its parent's module hooks (tsx under `reins`, vite's
// transform under vitest): register tsx's ESM loader here, then import the TypeScript body.
import { register } from 'tsx/esm/api';

register();
await import('./policyWorker.ts');
