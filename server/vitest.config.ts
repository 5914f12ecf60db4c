import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // Argon2 hashing, real archives and real databases make some cases slow on 2 shared cores.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
