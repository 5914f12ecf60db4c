// The timed side of `npm run bench:ingest`, run in its own process from the same esbuild bundle
// as `npm start` (see ingest.ts): stores a zip as an upload on a fresh SQLite DATA_DIR and runs
// its processing job as the server would. Prints one JSON line.
// Usage: node bench/dist/ingest-child.js --zip Z --warm W --work DIR
import { createReadStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { loadConfig } from '../../server/src/config/config.js';
import { openDatabase } from '../../server/src/db/database.js';
import { migrateToLatest } from '../../server/src/db/migrate.js';
import { PROCESS_UPLOAD } from '../../server/src/files/file-jobs.js';
import { processUpload } from '../../server/src/processing/process-upload.job.js';
import { createServices } from '../../server/src/services.js';
import { createStorage } from '../../server/src/storage/create-storage.js';
import { newUploadKey } from '../../server/src/storage/object-key.js';
import type { Storage } from '../../server/src/storage/storage.js';
import { s3EnvOf } from './s3-settings.js';

function arg(name: string): string {
  const at = process.argv.indexOf(`--${name}`);
  const value = at >= 0 ? process.argv[at + 1] : undefined;
  if (value === undefined) throw new Error(`--${name} is required`);
  return value;
}

type Services = ReturnType<typeof createServices>;

async function storeUpload(services: Services, zip: string): Promise<number> {
  const company = await services.repos.companies.create(`Bench ${path.basename(zip)}`);
  const project = await services.repos.projects.create({ company_id: company.id, name: 'Bench', created_by: null });
  const key = newUploadKey();
  const { size } = await services.storage.put(key, createReadStream(zip));
  const { row: file } = await services.repos.files.commitUpload({
    project_id: project.id,
    company_id: company.id,
    file: path.basename(zip),
    filesize: size,
    sha256: 'not-measured',
    storage_key: key,
    kind: 'archive',
    created_by: null,
  });
  return file.id;
}

/** Runs the queued job of one stored upload as the server would; answers seconds and the last flush's. */
async function runJob(services: Services, dataDir: string, limits: ReturnType<typeof loadConfig>['processing']['limits']) {
  const job = await services.repos.jobs.claim('bench', 3_600_000, PROCESS_UPLOAD.name);
  if (!job) throw new Error('no job was queued for the upload');
  // The final flush (one syncfs making every entry durable) is timed on its own as well.
  const s = services.storage;
  let flushSeconds = 0;
  const storage: Storage = {
    put: s.put.bind(s),
    putBytes: s.putBytes.bind(s),
    putFile: s.putFile.bind(s),
    get: s.get.bind(s),
    getBytes: s.getBytes.bind(s),
    openLocal: s.openLocal.bind(s),
    stat: s.stat.bind(s),
    delete: s.delete.bind(s),
    list: s.list.bind(s),
    sweepIncomplete: s.sweepIncomplete.bind(s),
    checkAccess: s.checkAccess.bind(s),
    flush: async () => {
      const at = process.hrtime.bigint();
      await s.flush();
      flushSeconds = Number(process.hrtime.bigint() - at) / 1e9;
    },
  };
  const started = process.hrtime.bigint();
  const deps = { files: services.repos.files, entries: services.repos.entries, storage, limits };
  // The runner would give the run its own scratch folder; so does the benchmark.
  const workDir = path.join(dataDir, 'work', `job-${job.id}`);
  await mkdir(workDir, { recursive: true });
  await processUpload(deps, PROCESS_UPLOAD.payload.parse(JSON.parse(job.payload)), { signal: new AbortController().signal, workDir: () => Promise.resolve(workDir), attempt: 1 });
  return { seconds: Number(process.hrtime.bigint() - started) / 1e9, flushSeconds };
}

/**
 * Runs in a child process so its peak RSS (main thread and the 7-Zip workers) is its own: the zip
 * is stored as an upload on a fresh SQLite DATA_DIR, then its processing job runs as the server
 * would run it. A small job runs first, untimed: a running server has compiled 7-Zip and warmed
 * its code already (the first job after a start pays about a second of CPU for that).
 */
async function child(zip: string, warmZip: string, dataDir: string): Promise<void> {
  await rm(dataDir, { recursive: true, force: true });
  // S3_* settings from the parent (ingest.ts --s3) store the upload and its entries in a bucket.
  const config = loadConfig({ ...s3EnvOf(process.env), DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  const handle = openDatabase(config);
  await migrateToLatest(handle);
  const services = createServices(handle, config, await createStorage(config));
  await storeUpload(services, warmZip);
  const warm = await runJob(services, dataDir, config.processing.limits);
  const fileId = await storeUpload(services, zip);
  const { seconds, flushSeconds } = await runJob(services, dataDir, config.processing.limits);

  const row = await services.repos.files.findForProcessing(fileId);
  const entries = await services.repos.entries.recordedCount(fileId);
  await handle.close();
  await rm(dataDir, { recursive: true, force: true });
  console.log(JSON.stringify({ seconds, flushSeconds, warmSeconds: warm.seconds, entries, status: row?.processing_status, summary: row?.processing_summary, rssMb: process.resourceUsage().maxRSS / 1024 }));
}

await child(arg('zip'), arg('warm'), arg('work'));
