import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // Each file starts its own server and browser; running them one at a time keeps two cores
    // free enough for processing and Chromium, and keeps the timings (and so the waits) steady.
    fileParallelism: false,
    pool: 'forks',
    testTimeout: 120_000,
    hookTimeout: 90_000,
    // A browser flow is a story: a later step depends on the earlier ones.
    sequence: { concurrent: false },
  },
});
