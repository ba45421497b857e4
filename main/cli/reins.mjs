#!/usr/bin/env node
// The `reins` command. The core is TypeScript run through tsx's loader, so `npx reins` works
// straight after `npm ci` with no build step for the core.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('./main.ts');
process.exitCode = await main(process.argv.slice(2));
