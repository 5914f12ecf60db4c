// Every setting comes from the environment and is validated here, once (DESIGN §9).
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { DEIDENTIFICATION_OPTIONS, DEIDENTIFICATION_PROFILES, type TDeidentificationOption, type TDeidentificationProfile } from '@portal/contract';
import { DEFAULT_LIMITS, type IngestLimits } from '../ingest/limits.js';

const int = (min: number, max = Number.MAX_SAFE_INTEGER) => z.coerce.number().int().min(min).max(max);
const DAY_MS = 24 * 3_600_000;
const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

const ZEnv = z.object({
  PORT: int(0, 65535).default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must start with postgres:// or postgresql://')
    .optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
  MAX_UPLOAD_BYTES: int(1).default(20 * 1024 ** 3),
  UPLOAD_LEASE_SECONDS: int(1).default(120),
  UPLOAD_IDLE_TIMEOUT_SECONDS: int(1, 3600).default(60),
  UPLOAD_EXPIRY_SECONDS: int(1).default(24 * 3600),
  UPLOAD_MAX_OPEN_PER_USER: int(1, 100_000).default(100),
  // Unset: a new company may store without limit (docs/configuration.md, "Storage allowances").
  DEFAULT_COMPANY_QUOTA_BYTES: int(0).optional(),
  // Bytes (5368709120) or a share of the filesystem (10%); unset: 2 GiB or 5 %, whichever is less.
  MIN_FREE_BYTES: z
    .string()
    .trim()
    .regex(/^(\d{1,16}|\d{1,2}(\.\d+)?%)$/, 'must be a number of bytes (such as 5368709120) or a percentage of the filesystem below 100 (such as 10%)')
    .optional(),
  // 0 purges a deleted file's bytes at once; at most a century, so the cut-off is always a date.
  DELETED_RETENTION_DAYS: int(0, 36_500).default(30),
  // What the web app is told to cut a tus upload into (GET /upload-settings); the server takes a
  // PATCH of any size. Under 1 MiB every chunk would cost a request and, with TUS_STORE=shared, an
  // object of its own, for no gain; any larger value (even past a file's size: one PATCH) works.
  UPLOAD_CHUNK_BYTES: z.coerce.number().int().min(1024 * 1024, 'must be at least 1048576 (1 MiB)').max(Number.MAX_SAFE_INTEGER).default(256 * 1024 ** 2),
  // Unset: 'shared' when S3_BUCKET is set (several nodes share a bucket), else 'file' (docs/configuration.md).
  TUS_STORE: z.enum(['file', 'shared']).optional(),
  PROCESSING_IN_SERVER: bool.default(true),
  PROCESSING_CONCURRENCY: int(1, 64).default(2),
  JOB_LEASE_SECONDS: int(3).default(60),
  JOB_MAX_ATTEMPTS: int(1, 100).default(3),
  JOB_RETRY_BASE_SECONDS: int(0).default(10),
  // How often an idle worker looks for jobs another process queued (its own it is told of at once).
  JOB_POLL_MILLISECONDS: int(10, 60_000).default(1000),
  // Virus scanning (docs/deployment.md, "ClamAV"): clamd's local socket, or its host and port.
  CLAMD_SOCKET: z.string().min(1).optional(),
  CLAMD_HOST: z.string().min(1).optional(),
  CLAMD_PORT: int(1, 65535).default(3310),
  CLAMD_TIMEOUT_SECONDS: int(1, 24 * 3600).default(600),
  MAX_ARCHIVE_ENTRIES: int(1).default(DEFAULT_LIMITS.maxEntries),
  MAX_EXTRACTED_BYTES: int(1).default(DEFAULT_LIMITS.maxTotalBytes),
  MAX_ENTRY_BYTES: int(1).default(DEFAULT_LIMITS.maxEntryBytes),
  MAX_COMPRESSION_RATIO: int(1).default(DEFAULT_LIMITS.maxCompressionRatio),
  MAX_ARCHIVE_DEPTH: int(1, 32).default(DEFAULT_LIMITS.maxDepth),
  MAX_ARCHIVES_PER_UPLOAD: int(1).default(DEFAULT_LIMITS.maxArchives),
  MAX_ENTRIES_SEEN_PER_UPLOAD: int(1).default(DEFAULT_LIMITS.maxEntriesSeen),
  MAX_PROCESSING_SECONDS: int(1, 7 * 24 * 3600).default(DEFAULT_LIMITS.maxProcessingMs / 1000),
  JSON_BODY_LIMIT_BYTES: int(1024, 10 * 1024 * 1024).default(1024 * 1024),
  TOKEN_IDLE_MINUTES: int(1).default(120),
  TOKEN_ABSOLUTE_HOURS: int(1).default(12),
  // One address adds at most the pair limit to an account's count, and always less than its
  // threshold, so one address alone cannot make the account's owner wait (login-throttle.policy.ts).
  LOGIN_MAX_FAILURES_PER_PAIR: int(1).default(5),
  LOGIN_MAX_FAILURES_PER_USER: int(1).default(10),
  LOGIN_MAX_FAILURES_PER_IP: int(1).default(30),
  LOGIN_THROTTLE_WINDOW_SECONDS: int(1).default(15 * 60),
  LOGIN_DELAY_BASE_SECONDS: int(1).default(5),
  LOGIN_DELAY_MAX_SECONDS: int(1, 24 * 3600).default(5 * 60),
  TRUST_PROXY: bool.default(false),
  ADMIN_USERNAME: z.string().min(1).max(255).optional(),
  ADMIN_PASSWORD: z.string().min(1).max(1024).optional(),
  ADMIN_COMPANY: z.string().min(1).max(255).default('Administration'),
  WEB_DIST_DIR: z.string().optional(),
  DOWNLOAD_IN_PAGE_MAX_BYTES: int(0).default(256 * 1024 ** 2),
  DOWNLOAD_LINK_START_SECONDS: int(5, 3600).default(60),
  DOWNLOAD_LINK_RESUME_HOURS: int(1, 7 * 24).default(24),
  PUBLIC_URL: z.url({ protocol: /^https?$/, error: 'must be the address people open the portal at, such as https://portal.example.org' }).optional(),
  RESET_LINK_HOURS: int(1, 24 * 30).default(24),
  PASSWORD_FORGOT_MAX_PER_ADDRESS: int(1).default(5),
  PASSWORD_FORGOT_WINDOW_MINUTES: int(1).default(60),
  SMTP_URL: z.string().regex(/^smtps?:\/\//, 'must start with smtp:// or smtps://').optional(),
  MAIL_FROM: z.string().min(3).max(255).optional(),
  // Bucket names as S3 allows them (lower case, digits, dots, hyphens): a typo fails here, not at the first upload.
  S3_BUCKET: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be a bucket name: 3 to 63 lower-case letters, digits, dots or hyphens')
    .optional(),
  S3_ENDPOINT: z.url({ protocol: /^https?$/, error: 'must be the address of the S3 service, such as https://s3.eu-central-1.amazonaws.com' }).optional(),
  S3_REGION: z.string().regex(/^[a-z0-9-]{1,64}$/, 'must be a region name such as eu-central-1').default('us-east-1'),
  S3_ACCESS_KEY_ID: z.string().min(1).max(256).optional(),
  // The value is never echoed: zod's messages name the setting, not what it holds.
  S3_SECRET_ACCESS_KEY: z.string().min(1).max(1024).optional(),
  S3_FORCE_PATH_STYLE: bool.default(false),
  S3_WORK_DIR: z.string().min(1).optional(),
  S3_WORK_MAX_BYTES: int(1024 * 1024).optional(),
  SSO_SECRET_KEY: z
    .string()
    .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be 32 random bytes in base64 (openssl rand -base64 32)')
    .optional(),
  SSO_DISCOVER_MAX_PER_ADDRESS: int(1).default(300),
  SSO_DISCOVER_WINDOW_MINUTES: int(1).default(10),
  // A bearer token (RFC 6750 characters), long enough that guessing it is hopeless.
  METRICS_TOKEN: z
    .string()
    .min(32, 'must be at least 32 characters long (for example the output of `openssl rand -hex 32`)')
    .max(1024)
    .regex(/^[A-Za-z0-9\-._~+/]+=*$/, 'may hold only letters, digits and - . _ ~ + / (and = at its end)')
    .optional(),
  METRICS_PORT: int(0, 65535).optional(),
  // What a new project is created with (docs/deidentification-policy.md); existing ones keep theirs.
  DEIDENTIFICATION_DEFAULT: z.enum(DEIDENTIFICATION_PROFILES, { error: `must be ${DEIDENTIFICATION_PROFILES.join(' or ')}` }).default('off'),
  DEIDENTIFICATION_DEFAULT_OPTIONS: z
    .string()
    .transform((v) => [...new Set(v.split(',').map((o) => o.trim()).filter(Boolean))])
    .refine((list) => list.every((o) => (DEIDENTIFICATION_OPTIONS as readonly string[]).includes(o)), {
      error: `must be options separated by commas, of ${DEIDENTIFICATION_OPTIONS.join(', ')}`,
    })
    .optional(),
  // Webhooks and e-mail notifications (docs/notifications.md).
  WEBHOOK_ALLOW_PRIVATE: bool.default(false),
  WEBHOOK_TIMEOUT_SECONDS: int(1, 60).default(10),
  WEBHOOK_RETRY_BASE_SECONDS: int(0, 3600).default(90),
  NOTIFY_DIGEST_HOUR_UTC: int(0, 23).default(7),
});

const S3_SETTINGS = ['S3_ENDPOINT', 'S3_REGION', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'S3_FORCE_PATH_STYLE', 'S3_WORK_DIR', 'S3_WORK_MAX_BYTES'] as const;

/** Where the bytes live when S3_BUCKET is set (storage/s3-storage.ts). */
export interface S3Config {
  bucket: string;
  /** Unset: AWS's own endpoint for the region. */
  endpoint: string | undefined;
  region: string;
  forcePathStyle: boolean;
  /**
   * Unset: the AWS SDK's own credential chain (AWS_* variables, an instance role). The secret is
   * a non-enumerable property, so logging or serialising the configuration never shows it.
   */
  credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
  /** Local copies of objects that a tool must read from a file (archives being processed). */
  workDir: string;
  /** At most this many bytes of such copies at once, per process. */
  workMaxBytes: number;
}

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  logLevel: z.infer<typeof ZEnv>['LOG_LEVEL'];
  logFormat: z.infer<typeof ZEnv>['LOG_FORMAT'];
  maxUploadBytes: number;
  uploadLeaseMs: number;
  /** No byte of an upload's body for this long stops it (408) and removes what it had written. */
  uploadIdleTimeoutMs: number;
  /** Storage limits (quota/): what a new company may store (null: unlimited), and the free space new uploads leave. */
  storageLimits: {
    defaultCompanyQuotaBytes: number | null;
    minFree: MinFree;
  };
  /** A deleted file's or delivery's bytes are removed from storage this long after its deletion (0: at once). */
  deletedRetentionMs: number;
  /** Resumable (tus) uploads: removed this long after they started if not finished; at most this many unfinished per user. */
  resumable: {
    expiryMs: number;
    maxOpenPerUser: number;
    /** Where unfinished tus uploads live: one node's DATA_DIR/tus, or the database and storage every node shares. */
    store: 'file' | 'shared';
    /** The PATCH size the web app is told to use (GET /upload-settings); the server takes any. */
    chunkBytes: number;
  };
  processing: {
    inServer: boolean;
    concurrency: number;
    leaseMs: number;
    maxAttempts: number;
    backoffMs: number;
    /** How often an idle lane claims without being woken: jobs queued by another process, retries fallen due. */
    pollMs: number;
    limits: Partial<IngestLimits>;
    /** clamd's address when CLAMD_SOCKET or CLAMD_HOST is set; undefined: nothing is scanned. */
    clamd: { socket: string | undefined; host: string | undefined; port: number; timeoutMs: number } | undefined;
  };
  jsonBodyLimitBytes: number;
  tokenIdleMs: number;
  tokenAbsoluteMs: number;
  /** The password throttle (auth/login-throttle.policy.ts). */
  loginThrottle: {
    /** Failed attempts from one address, across usernames, within the window. */
    maxPerIp: number;
    /** Failed attempts for one username from one address within the window. */
    maxPerPair: number;
    /** Failed attempts for one username, across addresses, before each further one must wait. */
    maxPerUser: number;
    windowMs: number;
    /** The first wait once maxPerUser is reached; it doubles with each further failure. */
    delayBaseMs: number;
    delayMaxMs: number;
  };
  trustProxy: boolean;
  bootstrapAdmin: { username: string; password: string; company: string } | undefined;
  webDistDir: string;
  downloads: {
    /** The web app reads files up to this size itself (the spec's overlay with percent); larger ones and folders go through a link. */
    inPageMaxBytes: number;
    /** A download link must be started within this. */
    linkStartMs: number;
    /** After its first use, how long its client may resume it. */
    linkResumeMs: number;
  };
  /** The portal's address for links in e-mails and reset links; else the request's own origin. */
  publicUrl: string | undefined;
  passwordLinks: {
    /** How long a reset link works. */
    lifetimeMs: number;
    /** 'Forgot your password?' requests one address may raise per window. */
    forgotMaxPerAddress: number;
    forgotWindowMs: number;
  };
  mail: { smtpUrl: string; from: string } | undefined;
  /** Unset: files are kept under DATA_DIR/objects. */
  s3: S3Config | undefined;
  sso: {
    /** Encrypts the companies' client secrets; else a key file under DATA_DIR made on first use (sso/secret-box.ts). */
    secretKey: Buffer | undefined;
    /** Sign-in look-ups and provider redirects one address may ask for per window. */
    maxPerAddress: number;
    windowMs: number;
  };
  /** The de-identification policy a new project is created with (DEIDENTIFICATION_DEFAULT, _OPTIONS). */
  newProjectDeidentification: { profile: TDeidentificationProfile; options: TDeidentificationOption[] };
  notifications: {
    /** WEBHOOK_ALLOW_PRIVATE: receivers on loopback, private and link-local addresses (and plain http) allowed. */
    webhookAllowPrivate: boolean;
    /** How long a receiver has to answer one attempt. */
    webhookTimeoutMs: number;
    /** The first retry after this long, doubling with every further attempt (ten retries: about a day). */
    webhookRetryBaseMs: number;
    /** The hour (UTC) from which the day's digest e-mails are sent. */
    digestHourUtc: number;
  };
  metrics: {
    /** A bearer that may read metrics besides a SysAdmin's session; the only one a worker's METRICS_PORT accepts. */
    token: string | undefined;
    /** A worker (`npm run worker`) serves GET /metrics on this port (on HOST) when set; 0 picks a free one. */
    port: number | undefined;
  };
}

/** The free space uploads leave: the smaller of the two when both are set (the default), else the one set. */
export interface MinFree {
  bytes: number | undefined;
  percent: number | undefined;
}

export const DEFAULT_MIN_FREE: MinFree = { bytes: 2 * 1024 ** 3, percent: 5 };

function parseMinFree(value: string | undefined): MinFree {
  if (value === undefined) return DEFAULT_MIN_FREE;
  return value.endsWith('%') ? { bytes: undefined, percent: Number(value.slice(0, -1)) } : { bytes: Number(value), percent: undefined };
}

export class ConfigError extends Error {}

/** Relative paths are taken from where `npm` was invoked, so `npm start` at the root uses ./data there. */
function baseDir(env: NodeJS.ProcessEnv): string {
  return env.INIT_CWD ?? process.cwd();
}

/** web/dist beside the server package, whether this runs from src/config (tsx) or the dist bundle. */
function defaultWebDist(): string {
  const candidates = ['../../../web/dist', '../../web/dist'].map((p) => path.resolve(import.meta.dirname, p));
  return candidates.find((c) => fs.existsSync(path.dirname(c))) ?? candidates[0]!;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = ZEnv.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const e = parsed.data;
  if ((e.ADMIN_USERNAME === undefined) !== (e.ADMIN_PASSWORD === undefined)) {
    throw new ConfigError('Invalid configuration:\n  ADMIN_USERNAME and ADMIN_PASSWORD must be set together');
  }
  if (e.LOGIN_DELAY_MAX_SECONDS < e.LOGIN_DELAY_BASE_SECONDS) {
    throw new ConfigError(
      'Invalid configuration:\n  LOGIN_DELAY_MAX_SECONDS must be at least LOGIN_DELAY_BASE_SECONDS',
    );
  }
  if ((e.SMTP_URL === undefined) !== (e.MAIL_FROM === undefined)) {
    throw new ConfigError('Invalid configuration:\n  SMTP_URL and MAIL_FROM must be set together');
  }
  if ((e.S3_ACCESS_KEY_ID === undefined) !== (e.S3_SECRET_ACCESS_KEY === undefined)) {
    throw new ConfigError('Invalid configuration:\n  S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together');
  }
  const strayS3 = S3_SETTINGS.filter((name) => present[name] !== undefined);
  if (e.S3_BUCKET === undefined && strayS3.length > 0) {
    throw new ConfigError(
      `Invalid configuration:\n  ${strayS3.join(', ')} set without S3_BUCKET: set S3_BUCKET to keep files in S3, or remove the S3 settings to keep them under DATA_DIR`,
    );
  }
  if (e.METRICS_PORT !== undefined && e.METRICS_TOKEN === undefined) {
    throw new ConfigError('Invalid configuration:\n  METRICS_PORT needs METRICS_TOKEN: a worker’s metrics answer only that token');
  }
  const deidOptions = (e.DEIDENTIFICATION_DEFAULT_OPTIONS ?? []) as TDeidentificationOption[];
  if (deidOptions.length > 0 && e.DEIDENTIFICATION_DEFAULT === 'off') {
    throw new ConfigError('Invalid configuration:\n  DEIDENTIFICATION_DEFAULT_OPTIONS needs DEIDENTIFICATION_DEFAULT=basic: the options belong to the basic profile');
  }
  const root = baseDir(env);
  const dataDir = path.resolve(root, e.DATA_DIR);
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir,
    databaseUrl: e.DATABASE_URL,
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    maxUploadBytes: e.MAX_UPLOAD_BYTES,
    uploadLeaseMs: e.UPLOAD_LEASE_SECONDS * 1000,
    uploadIdleTimeoutMs: e.UPLOAD_IDLE_TIMEOUT_SECONDS * 1000,
    storageLimits: {
      defaultCompanyQuotaBytes: e.DEFAULT_COMPANY_QUOTA_BYTES ?? null,
      minFree: parseMinFree(e.MIN_FREE_BYTES),
    },
    deletedRetentionMs: e.DELETED_RETENTION_DAYS * DAY_MS,
    resumable: {
      expiryMs: e.UPLOAD_EXPIRY_SECONDS * 1000,
      maxOpenPerUser: e.UPLOAD_MAX_OPEN_PER_USER,
      store: e.TUS_STORE ?? (present.S3_BUCKET !== undefined ? 'shared' : 'file'),
      chunkBytes: e.UPLOAD_CHUNK_BYTES,
    },
    processing: {
      inServer: e.PROCESSING_IN_SERVER,
      concurrency: e.PROCESSING_CONCURRENCY,
      leaseMs: e.JOB_LEASE_SECONDS * 1000,
      maxAttempts: e.JOB_MAX_ATTEMPTS,
      backoffMs: e.JOB_RETRY_BASE_SECONDS * 1000,
      pollMs: e.JOB_POLL_MILLISECONDS,
      limits: {
        maxEntries: e.MAX_ARCHIVE_ENTRIES,
        maxTotalBytes: e.MAX_EXTRACTED_BYTES,
        maxEntryBytes: e.MAX_ENTRY_BYTES,
        maxCompressionRatio: e.MAX_COMPRESSION_RATIO,
        maxDepth: e.MAX_ARCHIVE_DEPTH,
        maxArchives: e.MAX_ARCHIVES_PER_UPLOAD,
        maxEntriesSeen: e.MAX_ENTRIES_SEEN_PER_UPLOAD,
        maxProcessingMs: e.MAX_PROCESSING_SECONDS * 1000,
      },
      clamd:
        e.CLAMD_SOCKET !== undefined || e.CLAMD_HOST !== undefined
          ? { socket: e.CLAMD_SOCKET, host: e.CLAMD_HOST, port: e.CLAMD_PORT, timeoutMs: e.CLAMD_TIMEOUT_SECONDS * 1000 }
          : undefined,
    },
    jsonBodyLimitBytes: e.JSON_BODY_LIMIT_BYTES,
    tokenIdleMs: e.TOKEN_IDLE_MINUTES * 60_000,
    tokenAbsoluteMs: e.TOKEN_ABSOLUTE_HOURS * 3_600_000,
    loginThrottle: {
      maxPerIp: e.LOGIN_MAX_FAILURES_PER_IP,
      maxPerPair: e.LOGIN_MAX_FAILURES_PER_PAIR,
      maxPerUser: e.LOGIN_MAX_FAILURES_PER_USER,
      windowMs: e.LOGIN_THROTTLE_WINDOW_SECONDS * 1000,
      delayBaseMs: e.LOGIN_DELAY_BASE_SECONDS * 1000,
      delayMaxMs: e.LOGIN_DELAY_MAX_SECONDS * 1000,
    },
    trustProxy: e.TRUST_PROXY,
    bootstrapAdmin:
      e.ADMIN_USERNAME !== undefined && e.ADMIN_PASSWORD !== undefined
        ? { username: e.ADMIN_USERNAME, password: e.ADMIN_PASSWORD, company: e.ADMIN_COMPANY }
        : undefined,
    webDistDir: e.WEB_DIST_DIR ? path.resolve(root, e.WEB_DIST_DIR) : defaultWebDist(),
    downloads: {
      inPageMaxBytes: e.DOWNLOAD_IN_PAGE_MAX_BYTES,
      linkStartMs: e.DOWNLOAD_LINK_START_SECONDS * 1000,
      linkResumeMs: e.DOWNLOAD_LINK_RESUME_HOURS * 3_600_000,
    },
    publicUrl: e.PUBLIC_URL?.replace(/\/+$/, ''),
    passwordLinks: {
      lifetimeMs: e.RESET_LINK_HOURS * 3_600_000,
      forgotMaxPerAddress: e.PASSWORD_FORGOT_MAX_PER_ADDRESS,
      forgotWindowMs: e.PASSWORD_FORGOT_WINDOW_MINUTES * 60_000,
    },
    mail: e.SMTP_URL !== undefined && e.MAIL_FROM !== undefined ? { smtpUrl: e.SMTP_URL, from: e.MAIL_FROM } : undefined,
    s3:
      e.S3_BUCKET === undefined
        ? undefined
        : {
            bucket: e.S3_BUCKET,
            endpoint: e.S3_ENDPOINT,
            region: e.S3_REGION,
            forcePathStyle: e.S3_FORCE_PATH_STYLE,
            credentials:
              e.S3_ACCESS_KEY_ID !== undefined && e.S3_SECRET_ACCESS_KEY !== undefined
                ? hiddenSecret(e.S3_ACCESS_KEY_ID, e.S3_SECRET_ACCESS_KEY)
                : undefined,
            workDir: e.S3_WORK_DIR ? path.resolve(root, e.S3_WORK_DIR) : path.join(dataDir, 's3-work'),
            // By default the largest file a user may upload fits, so any upload can be processed.
            workMaxBytes: e.S3_WORK_MAX_BYTES ?? e.MAX_UPLOAD_BYTES,
          },
    sso: {
      secretKey: e.SSO_SECRET_KEY === undefined ? undefined : Buffer.from(e.SSO_SECRET_KEY, 'base64'),
      maxPerAddress: e.SSO_DISCOVER_MAX_PER_ADDRESS,
      windowMs: e.SSO_DISCOVER_WINDOW_MINUTES * 60_000,
    },
    newProjectDeidentification: {
      profile: e.DEIDENTIFICATION_DEFAULT,
      // In the order of the standard's table, as every answer lists them.
      options: DEIDENTIFICATION_OPTIONS.filter((o) => deidOptions.includes(o)),
    },
    metrics: { token: e.METRICS_TOKEN, port: e.METRICS_PORT },
    notifications: {
      webhookAllowPrivate: e.WEBHOOK_ALLOW_PRIVATE,
      webhookTimeoutMs: e.WEBHOOK_TIMEOUT_SECONDS * 1000,
      webhookRetryBaseMs: e.WEBHOOK_RETRY_BASE_SECONDS * 1000,
      digestHourUtc: e.NOTIFY_DIGEST_HOUR_UTC,
    },
  };
}

function hiddenSecret(accessKeyId: string, secretAccessKey: string): { accessKeyId: string; secretAccessKey: string } {
  const credentials = { accessKeyId } as { accessKeyId: string; secretAccessKey: string };
  Object.defineProperty(credentials, 'secretAccessKey', { value: secretAccessKey, enumerable: false });
  return credentials;
}

/** For entry points: a bad setting prints its message and stops the process with status 1. */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
}
