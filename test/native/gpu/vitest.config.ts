/**
 * The GPU tests: `npm run test:gpu` builds the GPU addon (scripts/build-gpu.sh)
 * and runs them with this configuration. They need a CUDA device; without one
 * (or without the GPU addon) the run stops at once with one line saying why.
 * Not part of `npm test`: their files end in .gpu-test.ts, which the default
 * configuration does not collect.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('../../..', import.meta.url)),
  test: {
    include: ['test/native/gpu/**/*.gpu-test.ts'],
    setupFiles: ['test/native/gpu/setup.ts'],
    pool: 'forks',
    // One GPU: one file at a time, so that each file's device memory figures are its own.
    fileParallelism: false,
    testTimeout: 300_000,
    hookTimeout: 300_000,
    reporters: ['default', './test/reporters/summary-line.ts'],
  },
});
