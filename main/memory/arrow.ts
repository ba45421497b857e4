// The one apache-arrow instance memory code builds with. LanceDB's JavaScript is CommonJS and checks
// Arrow objects with `instanceof` against the CommonJS build, while an ESM `import` gets the separate
// ESM build: a Field or Table from the ESM build is silently misread (addColumns rejects it). So
// memory code takes Arrow values from here; `import type` from 'apache-arrow' is fine for types.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
export const arrow: typeof import('apache-arrow') = require('apache-arrow');
