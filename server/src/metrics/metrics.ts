// What one process counts for Prometheus (issue 16). Each Metrics has its own registry, so the
// many apps a test run builds in one process never see each other's counts; only the process's
// own figures (CPU, memory, event loop) are kept once per process, as they describe the process.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export type UploadPath = 'multipart' | 'tus' | 'delivery';
export type PasswordCall = 'login' | 'password_reset';

/** What the queue gauges read at scrape time (JobsRepository.depth). */
export interface QueueReading {
  waiting: number;
  delayed: number;
  running: number;
  oldestDueAt: string | null;
}

/** A backlog counted past this is shown as this: the scrape's cost stays bounded however long the queue. */
export const QUEUE_COUNT_CAP = 100_000;

// Requests take milliseconds, but an upload or a large download may take hours.
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200];
// A DICOM file is processed in milliseconds, a 20 GB archive in minutes, and MAX_PROCESSING_SECONDS allows an hour.
const JOB_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 1800, 3600];

let processRegistry: Registry | undefined;

/** CPU, memory, handles and event-loop delay: one set per process, however many apps it builds. */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

export class Metrics {
  readonly registry = new Registry();
  /** The exposition format's media type, with its version. */
  readonly contentType = this.registry.contentType;
  readonly #httpRequests = new Counter({
    name: 'portal_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  readonly #httpDuration = new Histogram({
    name: 'portal_http_request_duration_seconds',
    help: 'Time from a request’s arrival to the end of its answer, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: HTTP_BUCKETS,
    registers: [this.registry],
  });
  readonly #uploads = new Counter({
    name: 'portal_uploads_total',
    help: 'Uploads that became files of their project, by path (multipart, tus, delivery: a completed folder whose files came by tus)',
    labelNames: ['path'] as const,
    registers: [this.registry],
  });
  readonly #uploadBytes = new Counter({
    name: 'portal_upload_bytes_total',
    help: 'Bytes of the uploads counted in portal_uploads_total, by path',
    labelNames: ['path'] as const,
    registers: [this.registry],
  });
  readonly #jobs = new Counter({
    name: 'portal_jobs_total',
    help: 'Job runs this process finished, by kind and outcome (done, failed, retrying, cancelled, handed-back)',
    labelNames: ['kind', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly #jobDuration = new Histogram({
    name: 'portal_job_duration_seconds',
    help: 'How long job runs in this process took, by kind and outcome',
    labelNames: ['kind', 'outcome'] as const,
    buckets: JOB_BUCKETS,
    registers: [this.registry],
  });
  readonly #storageErrors = new Counter({
    name: 'portal_storage_errors_total',
    help: 'Storage operations that failed, by operation and error (not_found, invalid_key, failed)',
    labelNames: ['operation', 'error'] as const,
    registers: [this.registry],
  });
  readonly #loginFailures = new Counter({
    name: 'portal_login_failures_total',
    help: 'Sign-ins refused with 401 (wrong username or password, disabled account)',
    registers: [this.registry],
  });
  readonly #throttled = new Counter({
    name: 'portal_login_throttled_total',
    help: 'Password checks refused with 429 by the password throttle, by call (login, password_reset)',
    labelNames: ['call'] as const,
    registers: [this.registry],
  });

  readonly #ssoFailures = new Counter({
    name: 'portal_sso_failures_total',
    help: "Single sign-ons that sent the browser back to the login screen without a session, by the audit trail's reason",
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  constructor() {
    for (const path of ['multipart', 'tus', 'delivery'] satisfies UploadPath[]) {
      this.#uploads.labels(path).inc(0);
      this.#uploadBytes.labels(path).inc(0);
    }
    for (const call of ['login', 'password_reset'] satisfies PasswordCall[]) this.#throttled.labels(call).inc(0);
  }

  /** `route` is the route's pattern ('/api/v1/study-petitions/:id'), never the URL asked for. */
  httpRequest(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.#httpRequests.inc(labels);
    this.#httpDuration.observe(labels, seconds);
  }

  uploaded(path: UploadPath, bytes: number): void {
    this.#uploads.labels(path).inc();
    this.#uploadBytes.labels(path).inc(bytes);
  }

  jobEnded(ended: { kind: string; outcome: string; seconds: number }): void {
    this.#jobs.labels(ended.kind, ended.outcome).inc();
    this.#jobDuration.labels(ended.kind, ended.outcome).observe(ended.seconds);
  }

  storageFailed(operation: string, error: string): void {
    this.#storageErrors.labels(operation, error).inc();
  }

  loginFailed(): void {
    this.#loginFailures.inc();
  }

  throttled(call: PasswordCall): void {
    this.#throttled.labels(call).inc();
  }

  /** `reason` is one of the flow's fixed causes (sso-flow.service.ts), never text from a provider. */
  ssoFailed(reason: string): void {
    this.#ssoFailures.labels(reason).inc();
  }

  /**
   * The queue is read from the database when scraped (one reading per scrape, bounded by
   * QUEUE_COUNT_CAP). If the database does not answer, the queue's samples are left out of that
   * scrape and `warn` is told; everything else is still served.
   */
  watchQueue(read: () => Promise<QueueReading>, warn: (err: unknown) => void): void {
    let reading: Promise<QueueReading | undefined> | undefined;
    // The gauges' collect functions run together for one scrape: they share one reading.
    const current = () => {
      reading ??= read()
        .catch((err: unknown) => {
          warn(err);
          return undefined;
        })
        .finally(() => setImmediate(() => (reading = undefined)));
      return reading;
    };
    new Gauge({
      name: 'portal_job_queue_depth',
      help: `Jobs in the shared queue by state: waiting (due, no worker has it yet), delayed (a retry's backoff), running; counted up to ${QUEUE_COUNT_CAP}`,
      labelNames: ['state'] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        const queue = await current();
        if (!queue) return;
        for (const state of ['waiting', 'delayed', 'running'] as const) this.labels(state).set(queue[state]);
      },
    });
    new Gauge({
      name: 'portal_job_queue_oldest_waiting_seconds',
      help: 'How long the job waiting longest has been due without a worker taking it (0: none waits)',
      labelNames: [] as const,
      registers: [this.registry],
      async collect() {
        const queue = await current();
        // An unlabelled gauge cannot be left out: NaN says "not known" where 0 would say "none waits".
        if (!queue) return this.set(Number.NaN);
        if (queue.oldestDueAt === null) return this.set(0);
        this.set(Math.max(0, (Date.now() - Date.parse(queue.oldestDueAt)) / 1000));
      },
    });
  }

  /** The text exposition format: this process's figures, then everything this Metrics counted. */
  async exposition(): Promise<string> {
    const [process, own] = await Promise.all([processMetrics().metrics(), this.registry.metrics()]);
    return `${process}\n${own}`;
  }
}
