import { defineConfig } from 'vitest/config';

/**
 * Files that measure the page's own responsiveness (the Long Tasks API): run after every other
 * file, alone, so that the two cores are shared only with their own portal and browser, not with
 * another suite's (issue 36 item 5's bound of 200 ms is a property of the page, not of the neighbours).
 */
const ALONE = ['tests/big-folder-responsiveness.test.ts'];

export default defineConfig({
  test: {
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
    projects: [
      // (Each project names its files: the root's `include` would be merged into both.)
      { extends: true, test: { name: 'e2e', include: ['tests/**/*.test.ts'], exclude: ALONE, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'alone', include: ALONE, sequence: { groupOrder: 1 } } },
    ],
  },
});
