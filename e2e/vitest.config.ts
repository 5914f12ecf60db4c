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
    // expect.poll waits for what a screen shows after a request; 1 s (Vitest's default) was too
    // short once in a CI run (the upload dialog's line waits for the policy and the project key).
    expect: { poll: { timeout: 10_000 } },
    // A browser flow is a story: a later step depends on the earlier ones.
    sequence: { concurrent: false },
  },
});
