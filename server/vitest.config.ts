import { defineConfig } from 'vitest/config';

/**
 * API tests that move bytes through storage end to end (multipart and tus uploads, ranged and
 * entry downloads, deletes, processing of zips, 7z and tar, a delivery's zip): run a second time
 * with the S3 backend, against an s3rver each test file starts on loopback.
 */
const S3_PASS = [
  'test/api/files.test.ts',
  'test/api/tus.test.ts',
  'test/api/processing.test.ts',
  'test/api/deliveries.test.ts',
  'test/api/download-links.test.ts',
  'test/api/upload-hardening.test.ts',
  'test/api/purge.test.ts',
  'test/api/server-deidentification.test.ts',
];

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    // Argon2 hashing, real archives and real databases make some cases slow on 2 shared cores.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Three files at a time, even on 2 cores (Vitest's default there is one): much of a file's time
    // is spent waiting on child processes, PostgreSQL, timers and the disk. A whole run took 474 s of
    // CPU (user and system, PostgreSQL aside) where CI's two cores gave 840 s of wall time at two at a
    // time. Each file has its own databases, DATA_DIRs and ports (0), so none shares anything.
    maxWorkers: 3,
    projects: [
      { extends: true, test: { name: 'server', include: ['src/**/*.test.ts', 'test/**/*.test.ts'] } },
      {
        extends: true,
        test: { name: 's3', include: S3_PASS, env: { TEST_STORAGE: 's3' }, setupFiles: ['test/s3-setup.ts'] },
      },
    ],
  },
});
