import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['main/**/*.test.ts', 'models/**/*.test.ts', 'app/**/*.test.ts', 'renderer/src/**/*.test.ts', 'test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/support/plainSummaryReporter.ts'],
  },
});
