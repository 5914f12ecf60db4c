// `npm run worker`: processing alone, claiming jobs from the same database as the API servers
// (which then run with PROCESSING_IN_SERVER=false, or keep their own runner as well).
import { loadConfigOrExit } from './config/config.js';
import { openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { createLogger } from './http/logger.js';
import { createJobRunner, createServices } from './services.js';
import { createStorageOrExit } from './storage/create-storage.js';

const config = loadConfigOrExit();
const log = createLogger(config);
const handle = openDatabase(config);
await migrateToLatest(handle);
const services = createServices(handle, config, await createStorageOrExit(config));
const runner = await createJobRunner(services, config, log);
await runner.sweepWorkRoot();
runner.start();
log.info({ workerId: runner.workerId, concurrency: config.processing.concurrency }, 'processing worker started');

async function shutdown(signal: string): Promise<void> {
  log.info({ signal }, 'worker stopping: handing running jobs back to the queue');
  await runner.stop();
  await handle.close();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
