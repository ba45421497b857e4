#!/usr/bin/env node
// The `reins` command. The core is TypeScript run through tsx's loader, so `npx reins` works
// straight after `npm ci` with no build step for the core.
import { register } from 'tsx/esm/api';

register();
// Before anything loads OpenBLAS (the world model's addon): it reads its kernel choice once, as it loads.
const { chooseOpenblasCore } = await import('../worldmodel/backend/openblasCore.ts');
chooseOpenblasCore();
const { main } = await import('./main.ts');
const code = await main(process.argv.slice(2));
// Every command has finished its own clean-up (robot stopped, servers and links closed) when main
// returns; a socket still half-closing or a lifeline on stdin must not keep the process alive.
process.exit(code);
