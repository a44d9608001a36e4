import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Native code: each test file in its own process, so a crash is reported
    // against its file and addon state never leaks between files.
    pool: 'forks',
    testTimeout: 120_000,
    reporters: ['default', './test/reporters/summary-line.ts'],
    hookTimeout: 120_000,
  },
});
