import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'deid',
    include: ['test/**/*.test.ts'],
    // dcmtk is run on every output of the shared corpus; two shared cores make that slow at times.
    testTimeout: 60_000,
  },
});
