// `npm run worker`: processing alone, claiming jobs from the same database as the API servers
// (which then run with PROCESSING_IN_SERVER=false, or keep their own runner as well).
import { loadConfigOrExit } from './config/config.js';
import { openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { createLogger } from './http/logger.js';
import { serveMetrics, type MetricsServer } from './metrics/index.js';
import { createJobRunner, createServices } from './services.js';
import { createStorageOrExit } from './storage/create-storage.js';

const config = loadConfigOrExit();
const log = createLogger(config);
const handle = openDatabase(config);
await migrateToLatest(handle);
const services = createServices(handle, config, await createStorageOrExit(config));
const runner = await createJobRunner(services, config, log);
await runner.sweepWorkRoot();
const metricsServer = await startMetricsServer();
runner.start();
log.info({ workerId: runner.workerId, concurrency: config.processing.concurrency }, 'processing worker started');

async function shutdown(signal: string): Promise<void> {
  log.info({ signal }, 'worker stopping: handing running jobs back to the queue');
  await metricsServer?.close();
  await runner.stop();
  await handle.close();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));

/** GET /metrics on HOST:METRICS_PORT, when set; a port that cannot be opened stops the worker. */
async function startMetricsServer(): Promise<MetricsServer | undefined> {
  const { port, token } = config.metrics;
  if (port === undefined || token === undefined) return undefined;
  try {
    const server = await serveMetrics(services.metrics, { host: config.host, port, token }, (err) =>
      log.error({ err }, 'reading the metrics for a scrape failed'),
    );
    log.info({ url: server.url }, 'metrics served');
    return server;
  } catch (err) {
    log.fatal({ err }, `METRICS_PORT ${port} on ${config.host} could not be opened (${(err as NodeJS.ErrnoException).code ?? 'error'}): choose a free port, or unset METRICS_PORT`);
    await handle.close();
    process.exit(1);
  }
}
