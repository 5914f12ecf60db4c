// A real portal listening on a loopback port, on a real database, for tests to call over HTTP.
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig, type Config } from '../src/config/config.js';
import { openDatabase, type Dialect } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { createJobRunner, createServices, wakeOnUpload, type Services } from '../src/services.js';
import { createStorage } from '../src/storage/create-storage.js';
import type { FreeSpaceReader } from '../src/quota/index.js';
import type { JobRunner } from '../src/jobs/job-runner.js';
import { createTestDatabase, type TestDatabase } from './databases.js';
import { TEST_POLL_MS } from './job-poll.js';
import { registerBucket, testStorageBackend, type TestStorageBackend } from './storage-registry.js';

export interface TestServer {
  url: string;
  api: string;
  app: FastifyInstance;
  services: Services;
  config: Config;
  database: TestDatabase;
  runner: JobRunner | undefined;
  close(): Promise<void>;
}

/**
 * S3: a fresh bucket of the test file's s3rver (started on first use, on loopback). The
 * filesystem needs no setting: objects go to DATA_DIR/objects.
 */
async function storageSettings(backend: TestStorageBackend, dataDir: string): Promise<Record<string, string>> {
  if (backend === 'filesystem') return {};
  // Loaded only here: most test files never start s3rver.
  const { sharedTestS3 } = await import('./storage-backends.js');
  const s3 = await sharedTestS3();
  const bucket = await s3.createBucket();
  registerBucket(dataDir, { directory: s3.directory, bucket });
  return s3.env(bucket);
}

/**
 * Passwords hashed in about a millisecond instead of 25–45: every test makes accounts and signs in
 * to them. password-cost.test.ts proves a portal as it runs hashes at production cost.
 */
export const TEST_PASSWORD_COST = { memoryCost: 1024, timeCost: 1 };

export async function startTestServer(
  dialect: Dialect,
  env: Record<string, string> = {},
  opts: { jobs?: boolean; clock?: () => number; storage?: TestStorageBackend; freeSpace?: FreeSpaceReader } = {},
): Promise<TestServer> {
  const database = await createTestDatabase(dialect, { migrated: true });
  const config = loadConfig({
    DATA_DIR: database.dataDir,
    LOG_LEVEL: 'silent',
    PORT: '0',
    // Tests run wherever there is a disk: the headroom is tested where a test sets it.
    MIN_FREE_BYTES: '0',
    JOB_POLL_MILLISECONDS: String(TEST_POLL_MS),
    ...(database.databaseUrl ? { DATABASE_URL: database.databaseUrl } : {}),
    ...(await storageSettings(opts.storage ?? testStorageBackend(), database.dataDir)),
    ...env,
  });
  const handle = openDatabase(config);
  await migrateToLatest(handle);
  const services = createServices(handle, config, await createStorage(config), { clock: opts.clock, freeSpace: opts.freeSpace, passwordCost: TEST_PASSWORD_COST });
  const app = await buildApp(config, services);
  const runner = opts.jobs ? await createJobRunner(services, config, app.log) : undefined;
  if (runner) {
    wakeOnUpload(services, runner);
    runner.start();
  }
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('server did not bind a TCP port');
  const url = `http://127.0.0.1:${address.port}`;
  return {
    url,
    api: `${url}/api/v1`,
    app,
    services,
    config,
    database,
    runner,
    close: async () => {
      await app.close();
      await runner?.stop();
      await handle.close();
      await database.drop();
    },
  };
}
