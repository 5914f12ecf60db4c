// Reads the configuration, prepares the database, and serves the API and the web app (main.ts starts it).
import { buildApp } from './app.js';
import { bootstrapFirstAdmin } from './admin/bootstrap.js';
import { loadConfigOrExit } from './config/config.js';
import { openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { createJobRunner, createServices, wakeOnUpload } from './services.js';
import { sweepUploads } from './uploads/upload-sweeper.js';
import { createStorageOrExit } from './storage/create-storage.js';
import { makeDataDirPrivate } from './storage/private-data-dir.js';

const config = loadConfigOrExit();
// Before anything is opened or written, so every file and folder made from here on is private.
const tightened = await makeDataDirPrivate(config.dataDir);
const handle = openDatabase(config);
await migrateToLatest(handle);
const services = createServices(handle, config, await createStorageOrExit(config));
const app = await buildApp(config, services);
await bootstrapFirstAdmin(services, config, app.log);
if (tightened.length > 0) {
  app.log.warn(
    { dataDir: config.dataDir, changed: tightened },
    `made ${tightened.length} files and folders under DATA_DIR private to the service user (folders 0700, files 0600)`,
  );
}

// SQLite means this is the only process that uploads: whatever was in flight died with the last one.
const swept = await sweepUploads(services.storage, services.repos.pendingUploads, {
  everything: handle.dialect === 'sqlite',
  leaseMs: config.uploadLeaseMs,
});
if (swept.temporaries + swept.abandoned > 0) app.log.info(swept, 'removed leftovers of interrupted uploads');
const expired = await services.tusUploads.sweep({ startup: handle.dialect === 'sqlite' });
const expiredDeliveries = await services.deliveries.sweepExpired((id) => services.tusUploads.remove(id));
if (expiredDeliveries > 0) app.log.info({ removed: expiredDeliveries }, 'removed expired open deliveries');
if (expired > 0) app.log.info({ removed: expired }, 'removed expired and abandoned resumable uploads');
await services.downloadLinks.sweep();
await services.sweepThrottle();
await services.purge.schedule();
const sweeper = setInterval(() => {
  sweepUploads(services.storage, services.repos.pendingUploads, { everything: false, leaseMs: config.uploadLeaseMs }).catch(
    (err: unknown) => app.log.error({ err }, 'sweeping interrupted uploads failed'),
  );
  services.tusUploads.sweep({ startup: false }).then(
    (removed) => removed > 0 && app.log.info({ removed }, 'removed expired resumable uploads'),
    (err: unknown) => app.log.error({ err }, 'sweeping expired resumable uploads failed'),
  );
  services.deliveries.sweepExpired((id) => services.tusUploads.remove(id)).then(
    (removed) => removed > 0 && app.log.info({ removed }, 'removed expired open deliveries'),
    (err: unknown) => app.log.error({ err }, 'sweeping expired open deliveries failed'),
  );
  services.downloadLinks.sweep().catch((err: unknown) => app.log.error({ err }, 'sweeping used and expired download links failed'));
  services.sweepThrottle().catch((err: unknown) => app.log.error({ err }, 'sweeping old sign-in throttle counters failed'));
  services.purge.schedule().catch((err: unknown) => app.log.error({ err }, 'queueing the purge of deleted files failed'));
  services.notifications.digest.queueIfDue().catch((err: unknown) => app.log.error({ err }, 'queueing the daily notification digest failed'));
}, Math.min(config.uploadLeaseMs, config.resumable.expiryMs));
sweeper.unref();

const runner = config.processing.inServer ? await createJobRunner(services, config, app.log) : undefined;
if (runner) {
  // With SQLite this is the only worker: jobs marked running died with the previous process.
  if (handle.dialect === 'sqlite') await services.repos.jobs.requeueRunning();
  await runner.sweepWorkRoot();
  wakeOnUpload(services, runner);
  runner.start();
}

let closing = false;
async function shutdown(signal: string): Promise<void> {
  if (closing) return;
  closing = true;
  app.log.info({ signal }, 'shutting down: finishing requests in flight');
  try {
    clearInterval(sweeper);
    await app.close();
    await runner?.stop();
    await handle.close();
    process.exit(0);
  } catch (err) {
    app.log.error({ err }, 'shutdown failed');
    process.exit(1);
  }
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));

await app.listen({ port: config.port, host: config.host });
