// Wires the processing job to a runner: in the server by default, or alone in `npm run worker`.
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config/config.js';
import { PROCESS_UPLOAD_JOB } from '../files/files.repository.js';
import type { Services } from '../services.js';
import { JobRunner } from '../jobs/job-runner.js';
import { runProcessUpload } from '../files/process-upload.job.js';

export function createJobRunner(services: Services, config: Config, log: FastifyBaseLogger): JobRunner {
  const deps = {
    files: services.repos.files,
    entries: services.repos.entries,
    storage: services.storage,
    workDir: path.join(config.dataDir, 'work'),
    limits: config.processing.limits,
  };
  return new JobRunner(
    services.repos.jobs,
    { [PROCESS_UPLOAD_JOB]: (job, signal) => runProcessUpload(deps, job, signal) },
    (job, message) =>
      services.repos.files.setProcessing(job.file_id, {
        status: 'failed',
        error: `Processing failed after ${job.attempts} attempts: ${message}`,
      }),
    {
      concurrency: config.processing.concurrency,
      leaseMs: config.processing.leaseMs,
      pollMs: 1000,
      maxAttempts: config.processing.maxAttempts,
      backoffMs: config.processing.backoffMs,
    },
    log.child({ component: 'jobs' }),
  );
}
