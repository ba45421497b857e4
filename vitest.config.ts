import { defineConfig } from 'vitest/config';
import { chooseOpenblasCore } from './main/worldmodel/backend/openblasCore.ts';

// The tests' processes run OpenBLAS on the kernels `reins` runs it on (the variable reaches them as they start).
chooseOpenblasCore();

export default defineConfig({
  test: {
    include: ['main/**/*.test.ts', 'models/**/*.test.ts', 'app/**/*.test.ts', 'renderer/src/**/*.test.ts', 'test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/support/plainSummaryReporter.ts'],
  },
});
