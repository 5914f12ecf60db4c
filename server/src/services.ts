// The composition root: repositories over one database, the services built on them, and the job
// kinds the runner knows (the one place a new kind is registered).
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { AuditRepository } from './audit/audit.repository.js';
import { AuditTrail } from './audit/audit.service.js';
import { AuthService } from './auth/auth.service.js';
import { PasswordLinksRepository } from './auth/password-links.repository.js';
import { PasswordLinksService } from './auth/password-links.service.js';
import { PasswordHasher, type PasswordCost } from './auth/password.js';
import { createMailer, type Mailer } from './mail/mailer.js';
import { LoginThrottle } from './auth/login-throttle.js';
import { LoginThrottleRepository } from './auth/login-throttle.repository.js';
import { SessionsRepository } from './auth/sessions.repository.js';
import { CompaniesRepository } from './companies/companies.repository.js';
import { CompaniesService } from './companies/companies.service.js';
import type { Config } from './config/config.js';
import type { DatabaseHandle } from './db/database.js';
import { Events } from './events/events.js';
import { ProjectsRepository } from './projects/projects.repository.js';
import { ProjectsListRepository } from './projects/projects-list.repository.js';
import type { ProjectEvents } from './projects/index.js';
import { ProjectsService } from './projects/projects.service.js';
import { UsersRepository } from './users/users.repository.js';
import { FilesRepository } from './files/files.repository.js';
import { FilesService } from './files/files.service.js';
import type { FileEvents } from './files/index.js';
import { resolveLimits } from './ingest/index.js';
import { PendingUploadsRepository } from './uploads/pending-uploads.repository.js';
import { UploadsService } from './uploads/uploads.service.js';
import type { UploadEvents } from './uploads/index.js';
import { TusUploadsRepository } from './tus/tus-uploads.repository.js';
import { TusUploadsService } from './tus/tus-uploads.service.js';
import { createSharedTus } from './tus/tus-shared.js';
import type { Storage } from './storage/storage.js';
import { EntriesRepository } from './files/entries.repository.js';
import { ContentsService } from './files/contents.service.js';
import { processUploadJob } from './processing/process-upload.job.js';
import { PROCESS_DELIVERY } from './files/file-jobs.js';
import { processDeliveryJob } from './processing/process-delivery.job.js';
import { DeliveriesRepository } from './deliveries/deliveries.repository.js';
import { DeliveriesService } from './deliveries/deliveries.service.js';
import { StowService } from './dicomweb/stow.service.js';
import type { DeliveryEvents } from './deliveries/index.js';
import { DownloadLinksRepository } from './files/download-links.repository.js';
import { DownloadLinksService } from './files/download-links.service.js';
import { purgeDeletedJob } from './processing/purge-deleted.job.js';
import { PurgeRepository } from './files/purge.repository.js';
import { PurgeService } from './files/purge.service.js';
import { JobRunner, JobsRepository, type JobKind } from './jobs/index.js';
import { countStorageErrors, Metrics, QUEUE_COUNT_CAP } from './metrics/index.js';
import { StudiesRepository } from './studies/studies.repository.js';
import { StudiesService } from './studies/studies.service.js';
import { QidoRepository, QidoService, WadoRepository, WadoService } from './dicomweb/index.js';
import { passwordLoginPolicy, SecretBox, SsoSettingsRepository } from './sso/index.js';
import { Authenticators, SecondStepService, TwoFactorRepository, TwoFactorService } from './two-factor/index.js';
import { DeidentificationRepository, DeidentificationService, ProjectKeys } from './deidentification/index.js';
import { ReviewRepository, ReviewService, type ReviewEvents } from './review/index.js';
import { RENDER_THUMBNAILS, renderThumbnailsJob, ThumbnailRenderer, ThumbnailsRepository, ThumbnailsService } from './thumbnails/index.js';
import { CompanyQuotas, QuotaRepository, StorageHeadroom, UploadAllowance, type FreeSpaceReader } from './quota/index.js';
import {
  deliverWebhookJob,
  DigestSchedule,
  NotificationPreferences,
  NotificationsRepository,
  Notifier,
  sendDigestJob,
  sendNotificationMailJob,
  WebhooksAdministration,
  WebhooksRepository,
} from './notifications/index.js';
import { ApiTokensRepository, ApiTokensService } from './tokens/index.js';
import { ClamdScanner } from './scanning/index.js';

/** Every event a room announces, by name (each room's *-events.ts); reactions are added here only. */
export type PortalEvents = ProjectEvents & FileEvents & UploadEvents & DeliveryEvents & ReviewEvents;

export interface Services {
  handle: DatabaseHandle;
  repos: {
    users: UsersRepository;
    companies: CompaniesRepository;
    sessions: SessionsRepository;
    projects: ProjectsRepository;
    files: FilesRepository;
    pendingUploads: PendingUploadsRepository;
    tusUploads: TusUploadsRepository;
    entries: EntriesRepository;
    jobs: JobsRepository;
    deliveries: DeliveriesRepository;
    downloadLinks: DownloadLinksRepository;
    passwordLinks: PasswordLinksRepository;
    /** Companies' single sign-on settings (sso/). */
    ssoSettings: SsoSettingsRepository;
    /** Companies' storage allowances and what they use (quota/). */
    quota: QuotaRepository;
    /** Projects' de-identification policies and sealed keys (deidentification/). */
    deidentification: DeidentificationRepository;
    /** Users' choices of e-mails and the e-mails waiting (notifications/). */
    notifications: NotificationsRepository;
    /** Webhook endpoints and their log (notifications/). */
    webhooks: WebhooksRepository;
    /** Personal API tokens (tokens/). */
    apiTokens: ApiTokensRepository;
  };
  /** Every action worth answering for (issue 15): appended, hash-chained. */
  audit: AuditTrail;
  /** Reset links and 'Forgot your password?'. */
  passwordLinks: PasswordLinksService;
  /** Set when SMTP_URL is. */
  mailer: Mailer | undefined;
  storage: Storage;
  auth: AuthService;
  companies: CompaniesService;
  projects: ProjectsService;
  /** Projects' de-identification policies, and their keys (keyOfProject) for the server's own de-identification. */
  deidentification: DeidentificationService;
  /** The catalogue: a project's files as stored, listed, downloaded and deleted. */
  files: FilesService;
  /** How bytes become a file row: the checks, the durable store, the commit with its job. */
  uploads: UploadsService;
  /** Resumable uploads (tus) in progress. */
  tusUploads: TusUploadsService;
  contents: ContentsService;
  studies: StudiesService;
  /** DICOMweb searches (QIDO-RS) of a project's instances. */
  qido: QidoService;
  /** DICOMweb retrieval (WADO-RS) of a project's instances, from storage. */
  wado: WadoService;
  /** Folders sent as one unit. */
  deliveries: DeliveriesService;
  /** DICOMweb STOW-RS: each request one delivery. */
  stow: StowService;
  /** Free space (MIN_FREE_BYTES) and companies' allowances, weighed before an upload stores a byte. */
  allowance: UploadAllowance;
  /** Single-use URLs for the browser's own download manager. */
  downloadLinks: DownloadLinksService;
  /** Gives back the bytes of deleted files and deliveries after DELETED_RETENTION_DAYS. */
  purge: PurgeService;
  /** Arrival rules, accept or reject, the reviewers' inbox (issue 35). */
  review: ReviewService;
  /** Series thumbnails (issue 34): rendered by their own process after processing, served to the Studies view and DICOMweb. */
  thumbnails: { service: ThumbnailsService; repository: ThumbnailsRepository; renderer: ThumbnailRenderer };
  /** This composition's counts for Prometheus (its own registry: apps built side by side never share one). */
  metrics: Metrics;
  /** The rooms' announcements; who reacts is decided in this file (createServices, wakeOnUpload) and nowhere else. */
  events: Events<PortalEvents>;
  /** People told (issue 35): the reactions that queue e-mails and webhooks, users' choices, the endpoints, the daily digest. */
  notifications: { notifier: Notifier; preferences: NotificationPreferences; webhooks: WebhooksAdministration; digest: DigestSchedule };
  /** Personal API tokens: made, listed, revoked (issue 37); their use as a bearer is app.ts's. */
  apiTokens: ApiTokensService;
  /** Two-factor sign-in (issue 37): the second step of a sign-in, and the account's and administrators' settings. */
  twoFactor: { secondStep: SecondStepService; settings: TwoFactorService };
  /** Deletes sign-in throttle counters too old to matter; answers how many. */
  sweepThrottle: () => Promise<number>;
  /** Hashes new passwords (users made by the CLI, the admin API and the first start; changes and resets). */
  passwords: PasswordHasher;
}

export interface ServiceOptions {
  /** Milliseconds since the epoch as the password throttle reads them (tests move it by hand). */
  clock?: () => number;
  /** Where a failure nobody waits for (an e-mail sent after the answer) is reported. */
  warn?: (error: unknown, message: string) => void;
  /** How free space under DATA_DIR is read (tests inject a reading); statfs by default. */
  freeSpace?: FreeSpaceReader;
  /** What new passwords are hashed at: PRODUCTION_PASSWORD_COST unless a test makes them cheap. */
  passwordCost?: PasswordCost;
}

const warnOnStderr = (error: unknown, message: string) => console.error(`${message}: ${error instanceof Error ? error.message : String(error)}`);

export function createServices(handle: DatabaseHandle, config: Config, backend: Storage, options: ServiceOptions = {}): Services {
  const { db } = handle;
  const warn = options.warn ?? warnOnStderr;
  const metrics = new Metrics();
  const storage = countStorageErrors(backend, (operation, error) => metrics.storageFailed(operation, error));
  const repos = {
    users: new UsersRepository(db),
    companies: new CompaniesRepository(db),
    sessions: new SessionsRepository(db),
    projects: new ProjectsRepository(db),
    projectsList: new ProjectsListRepository(db),
    files: new FilesRepository(db),
    pendingUploads: new PendingUploadsRepository(db),
    tusUploads: new TusUploadsRepository(db),
    entries: new EntriesRepository(db),
    jobs: new JobsRepository(db, handle.dialect),
    deliveries: new DeliveriesRepository(db),
    downloadLinks: new DownloadLinksRepository(db),
    passwordLinks: new PasswordLinksRepository(db),
    ssoSettings: new SsoSettingsRepository(db),
    quota: new QuotaRepository(db),
    deidentification: new DeidentificationRepository(db),
    notifications: new NotificationsRepository(db),
    webhooks: new WebhooksRepository(db),
    apiTokens: new ApiTokensRepository(db),
  };
  const audit = new AuditTrail(new AuditRepository(db));
  const mailer = createMailer(config.mail);
  const events = new Events<PortalEvents>();
  const projects = new ProjectsService(repos.projects, audit, config.newProjectDeidentification, events, repos.projectsList);
  // Sealed with the same key as the single sign-on client secrets (its own instance reads the same key).
  const projectKeys = new ProjectKeys(repos.deidentification, new SecretBox({ key: config.sso.secretKey, dataDir: config.dataDir }));
  const storageDirs = [config.dataDir, ...(config.s3 ? [config.s3.workDir] : [])];
  const allowance = new UploadAllowance(new StorageHeadroom(storageDirs, config.storageLimits.minFree, options.freeSpace, !config.s3), new CompanyQuotas(repos.quota, config.storageLimits.defaultCompanyQuotaBytes));
  const files = new FilesService(repos.files, repos.jobs, projects, audit, events);
  const uploads = new UploadsService(repos.files, repos.pendingUploads, projects, storage, {
    maxUploadBytes: config.maxUploadBytes,
    uploadLeaseMs: config.uploadLeaseMs,
    maxDicomHeaderBytes: resolveLimits(config.processing.limits).maxDicomHeaderBytes,
  }, audit, events, allowance);
  const deliveries = new DeliveriesService(repos.deliveries, repos.pendingUploads, projects, uploads, storage, {
    maxUploadBytes: config.maxUploadBytes,
    uploadLeaseMs: config.uploadLeaseMs,
    expiryMs: config.resumable.expiryMs,
  }, events);
  metrics.watchQueue(() => repos.jobs.depth(QUEUE_COUNT_CAP), (err) => warn(err, 'reading the job queue for metrics failed'));
  const contents = new ContentsService(files, repos.entries);
  const throttleRepo = new LoginThrottleRepository(db, options.clock);
  const throttle = new LoginThrottle(throttleRepo, config.loginThrottle, options.clock);
  const clock = options.clock ?? Date.now;
  const purge = new PurgeService(new PurgeRepository(db), storage, audit, {
    retentionMs: config.deletedRetentionMs,
    leaseMs: config.processing.leaseMs,
    clock,
  });
  const downloadLinks = new DownloadLinksService(repos.downloadLinks, repos.users, files, contents, {
    startMs: config.downloads.linkStartMs,
    resumeMs: config.downloads.linkResumeMs,
  }, options.clock);
  // Who reacts to what, in the order they run. Each deletion's audit row is written before these,
  // so the purge a reaction queues (with no retention) is recorded after it.
  events.on('file.uploaded', (row, via) => metrics.uploaded(via, Number(row.filesize)));
  events.on('delivery.completed', (row) => metrics.uploaded('delivery', Number(row.filesize)));
  events.on('file.removed', () => purge.deleted());
  events.on('file.removed', (fileId) => downloadLinks.fileRemoved(fileId));
  events.on('project.removed', (projectId) => files.projectRemoved(projectId));
  events.on('project.removed', () => purge.deleted());
  const notifier = new Notifier(repos.notifications, { mailConfigured: mailer !== undefined, publicUrl: config.publicUrl, warn });
  events.on('file.uploaded', (row) => notifier.completed(row));
  events.on('delivery.completed', (row) => notifier.completed(row));
  events.on('file.processed', (fileId, companyId) => notifier.processed(fileId, companyId));
  events.on('file.failed', (fileId, companyId) => notifier.processed(fileId, companyId));
  events.on('file.reviewed', (fileId, companyId, decision) => notifier.reviewed(fileId, companyId, decision));
  const deidentification = new DeidentificationService(projects, repos.deidentification, projectKeys, audit);
  const review = new ReviewService(new ReviewRepository(db), repos.files, projects, audit, events);
  // The project's rules judge a file once its processing is committed (issue 35). A failure here
  // must not fail the job whose outcome is already committed: the file then awaits no review, said in the log.
  events.on('file.processed', (fileId) => review.judge(fileId).catch((err: unknown) => warn(err, `checking file ${fileId} against its project's arrival rules failed`)));
  // Sealed with the single sign-on key too. The second step starts sessions as a password sign-in
  // does; the sign-in asks it what is still due after the password: each needs the other.
  const authenticators = new Authenticators(new TwoFactorRepository(db), new SecretBox({ key: config.sso.secretKey, dataDir: config.dataDir }), clock);
  const passwordLoginRefusal = passwordLoginPolicy(repos.ssoSettings, repos.companies);
  const secondStep: SecondStepService = new SecondStepService(authenticators, { users: repos.users, throttle, audit, startSession: (user) => auth.startSession(user, 'password') });
  const passwords = new PasswordHasher(options.passwordCost);
  const auth: AuthService = new AuthService(repos.users, repos.sessions, throttle, {
    idleMs: config.tokenIdleMs,
    absoluteMs: config.tokenAbsoluteMs,
  }, audit, passwords, passwordLoginRefusal, secondStep);
  // Its series' thumbnails are made by a job of their own: whatever happens to them, the file stays processed.
  const thumbnailsRepo = new ThumbnailsRepository(db);
  events.on('file.processed', (fileId, companyId) => thumbnailsRepo.queue(fileId, companyId).catch((err: unknown) => warn(err, `queueing the thumbnails of file ${fileId} failed`)));
  return {
    handle,
    repos,
    auth,
    passwords,
    twoFactor: {
      secondStep,
      settings: new TwoFactorService(authenticators, { users: repos.users, companies: repos.companies, throttle, audit, passwordLoginRefusal }),
    },
    audit,
    mailer,
    passwordLinks: new PasswordLinksService(repos.passwordLinks, repos.users, repos.sessions, audit, mailer, {
      ...config.passwordLinks,
      publicUrl: config.publicUrl,
    }, warn, passwords),
    companies: new CompaniesService(repos.companies, allowance.quotas),
    projects,
    deidentification,
    storage,
    files,
    uploads,
    tusUploads: new TusUploadsService(repos.tusUploads, uploads, projects, {
      directory: path.join(config.dataDir, 'tus'),
      maxUploadBytes: config.maxUploadBytes,
      expiryMs: config.resumable.expiryMs,
      maxOpenPerUser: config.resumable.maxOpenPerUser,
      shared: createSharedTus(handle, storage, config),
    }, deliveries),
    contents,
    studies: new StudiesService(projects, new StudiesRepository(db)),
    qido: new QidoService(projects, new QidoRepository(db)),
    wado: new WadoService(projects, new WadoRepository(db), storage),
    deliveries,
    stow: new StowService(projects, deliveries, uploads, deidentification, { directory: path.join(config.dataDir, 'tus'), maxUploadBytes: config.maxUploadBytes }),
    allowance,
    downloadLinks,
    purge,
    review,
    thumbnails: { service: new ThumbnailsService(projects, thumbnailsRepo, storage), repository: thumbnailsRepo, renderer: new ThumbnailRenderer() },
    metrics,
    events,
    notifications: {
      notifier,
      preferences: new NotificationPreferences(repos.notifications, repos.users, mailer !== undefined),
      webhooks: new WebhooksAdministration(repos.webhooks, repos.companies, audit, new SecretBox({ key: config.sso.secretKey, dataDir: config.dataDir }), {
        allowPrivate: config.notifications.webhookAllowPrivate,
      }),
      digest: new DigestSchedule(db, repos.jobs, { hourUtc: config.notifications.digestHourUtc, clock }),
    },
    apiTokens: new ApiTokensService(repos.apiTokens, projects, audit),
    // The password throttle and single sign-on's per-address limit share the table: the longer
    // window decides.
    sweepThrottle: () => throttleRepo.sweep(clock() - Math.max(config.loginThrottle.windowMs, config.sso.windowMs)),
  };
}

function jobKinds(services: Services, config: Config, log: FastifyBaseLogger): JobKind<unknown>[] {
  const scanner = config.processing.clamd ? new ClamdScanner(config.processing.clamd) : undefined;
  return [
    processUploadJob({
      files: services.repos.files,
      entries: services.repos.entries,
      storage: services.storage,
      limits: config.processing.limits,
      policies: services.deidentification,
      events: services.events,
      scanner,
      audit: services.audit,
    }),
    processDeliveryJob({
      files: services.repos.files,
      members: services.repos.deliveries,
      entries: services.repos.entries,
      storage: services.storage,
      limits: config.processing.limits,
      policies: services.deidentification,
      events: services.events,
      scanner,
      audit: services.audit,
    }),
    purgeDeletedJob(services.purge),
    deliverWebhookJob({
      webhooks: services.repos.webhooks,
      box: new SecretBox({ key: config.sso.secretKey, dataDir: config.dataDir }),
      allowPrivate: config.notifications.webhookAllowPrivate,
      timeoutMs: config.notifications.webhookTimeoutMs,
      retryBaseMs: config.notifications.webhookRetryBaseMs,
    }),
    sendNotificationMailJob({ notifications: services.repos.notifications, mailer: services.mailer }),
    sendDigestJob({ notifications: services.repos.notifications, mailer: services.mailer }),
    renderThumbnailsJob({
      thumbnails: services.thumbnails.repository,
      storage: services.storage,
      renderer: services.thumbnails.renderer,
      warn: (message) => log.warn({ component: 'thumbnails' }, message),
    }),
  ];
}

/**
 * Each committed upload starts its job on an idle upload lane (queued already claimed, in the
 * upload's transaction), or wakes one to claim it; a delivery's completion wakes one idle delivery
 * lane; a processed file's thumbnails job, queued by an earlier reaction to the same event, wakes
 * one idle thumbnails lane instead of waiting for its poll. A lane of another kind would only run a
 * claim that finds nothing, one per small upload.
 */
export function wakeOnUpload(services: Services, runner: JobRunner): void {
  services.uploads.runJobsOn(runner);
  services.events.on('delivery.completed', () => runner.nudge(PROCESS_DELIVERY.name));
  services.events.on('file.processed', () => runner.nudge(RENDER_THUMBNAILS.name));
}

/** A runner for every registered kind, in the server by default or alone in `npm run worker`; refuses a queue holding a kind it does not know. */
export async function createJobRunner(services: Services, config: Config, log: FastifyBaseLogger): Promise<JobRunner> {
  const runner = new JobRunner(
    services.repos.jobs,
    jobKinds(services, config, log),
    {
      leaseMs: config.processing.leaseMs,
      workRoot: path.join(config.dataDir, 'work'),
      pollMs: config.processing.pollMs,
      defaults: { concurrency: config.processing.concurrency, maxAttempts: config.processing.maxAttempts, backoffMs: config.processing.backoffMs },
      onJobEnded: (ended) => services.metrics.jobEnded(ended),
    },
    log.child({ component: 'jobs' }),
  );
  await runner.refuseUnknownKinds();
  return runner;
}
