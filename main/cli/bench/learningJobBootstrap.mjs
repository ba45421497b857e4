// A learning bench job runs in a process of its own (learningJobs.ts), forked without its parent's
// loader flags: this plain module registers tsx's ESM loader and then imports the TypeScript body.
import { register } from 'tsx/esm/api';

register();
await import('./learningJobProcess.ts');
