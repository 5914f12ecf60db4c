import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // Each file starts its own server (its own port and DATA_DIR) and browser, so files share
    // nothing: two at a time, as most of a file's time is the browser and the server waiting on each
    // other (Vitest would run one on 2 cores).
    maxWorkers: 2,
    pool: 'forks',
    testTimeout: 120_000,
    hookTimeout: 90_000,
    // A browser flow is a story: a later step depends on the earlier ones.
    sequence: { concurrent: false },
  },
});
