// A real portal listening on a loopback port, on a real database, for tests to call over HTTP.
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig, type Config } from '../src/config/config.js';
import { openDatabase, type Dialect } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { createJobRunner, createServices, type Services } from '../src/services.js';
import { createStorage } from '../src/storage/create-storage.js';
import type { JobRunner } from '../src/jobs/job-runner.js';
import { createTestDatabase, type TestDatabase } from './databases.js';

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

export async function startTestServer(
  dialect: Dialect,
  env: Record<string, string> = {},
  opts: { jobs?: boolean; clock?: () => number } = {},
): Promise<TestServer> {
  const database = await createTestDatabase(dialect);
  const config = loadConfig({
    DATA_DIR: database.dataDir,
    LOG_LEVEL: 'silent',
    PORT: '0',
    ...(database.databaseUrl ? { DATABASE_URL: database.databaseUrl } : {}),
    ...env,
  });
  const handle = openDatabase(config);
  await migrateToLatest(handle);
  const services = createServices(handle, config, createStorage(config), { clock: opts.clock });
  const app = await buildApp(config, services);
  const runner = opts.jobs ? await createJobRunner(services, config, app.log) : undefined;
  if (runner) {
    services.files.onUploaded(() => runner.nudge());
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
