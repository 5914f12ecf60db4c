import { AxiosError, type AxiosResponse } from 'axios';
import { defaultOptions, Upload, type DetailedError, type HttpStack, type PreviousUpload } from 'tus-js-client';
import { mapApiError, type UserFacingError } from '../../../lib/error-mapping';
import { readStoredUser } from '../../../lib/storage';
import { BUNDLE_METADATA_KEY, BUNDLE_METADATA_VALUE } from '@portal/contract';
import { signatureOf, type BundleFile } from './bundle';
import { DEFAULT_CHUNK_BYTES, WITH_CREATION_MAX_BYTES } from './tus-chunk';
import { apiClientHttpStack, TUS_ENDPOINT } from './tus-http-stack';
import { chunkBytesReader } from './upload-settings';

export { DEFAULT_CHUNK_BYTES, WITH_CREATION_MAX_BYTES } from './tus-chunk';

/** Backoff between attempts after a network error or a 5xx; the counter restarts whenever bytes get through. */
export const RETRY_DELAYS_MS = [1_000, 3_000, 5_000, 10_000, 20_000, 30_000, 60_000];

/** The server forgets an unfinished upload after 24 h (its default); older resume entries are useless. */
export const RESUME_MAX_AGE_MS = 24 * 60 * 60 * 1000;

export interface UploadJob {
  projectId: number;
  path: string;
  file: File;
  /** Set for a file of a picked folder: the delivery it belongs to and its path inside the folder. */
  delivery?: { id: number; relativePath: string };
  /** Set for a bundle of a folder's small files: `file` is their tar (bundle.ts), `path` its name. */
  bundle?: { deliveryId: number; members: readonly BundleFile[] };
  /**
   * Set when `file` is made from the picked file (or, for a bundle, its members) in a way named by
   * `made` (a de-identification policy): a resume must find the upload of the same picked files
   * made the same way, whatever size the made file has. A bundle is known by its members, so a
   * made bundle names no original.
   */
  variant?: { made: string; original?: File };
  /** The rejected file a file sent alone replaces (issue 35); a delivery names it when it is opened. */
  replaces?: number;
}

export interface UploadResult {
  /** The project file the upload became (header `Portal-File-Id` of the last answer). */
  fileId: number | null;
}

export class UploadFailure extends Error {
  constructor(
    readonly reason: UserFacingError,
    /** False for a refusal (4xx): sending the same bytes again would be refused again. */
    readonly retryable: boolean,
  ) {
    super(`${reason.message}: ${reason.details}`);
  }
}

/**
 * Files of a send that must not be sent at all (their identity cannot be removed), by their path
 * inside the folder (or name, alone), each with the reason in words. The send's other files go on.
 */
export class LeftOutFailure extends UploadFailure {
  constructor(readonly leftOut: ReadonlyMap<string, string>) {
    super({ message: 'Left out', details: [...leftOut].map(([path, reason]) => `${path}: ${reason}`).join('; ') }, false);
  }
}

export interface RunningUpload {
  result: Promise<UploadResult>;
  /** Stops sending and deletes what the server holds of this upload. */
  cancel(): Promise<void>;
  /** Stops sending but keeps the server's part, so picking the file again resumes it. */
  abandon(): void;
}

export interface UploadCallbacks {
  onProgress: (bytesSent: number) => void;
  onResume: () => void;
}

export type Transport = (job: UploadJob, callbacks: UploadCallbacks) => RunningUpload;

/** A bundle's bytes made from its picked files: their tar, or (de-identifying) the tar of the made files and how they were made. */
export type BundleMaker = (members: readonly BundleFile[]) => Promise<Pick<UploadJob, 'file' | 'variant'>>;

export interface TusOptions {
  httpStack?: HttpStack;
  retryDelays?: number[];
  /** Fixed instead of the server's (GET /upload-settings). */
  chunkSize?: number;
}

/**
 * Resume entries are keyed by user, project and the file's identity, so another user or another
 * project never tries (and is never offered) someone else's upload. JSON keeps the key unambiguous:
 * tus-js-client looks entries up by prefix.
 */
export function fingerprintOf(job: UploadJob): string {
  const userId = readStoredUser()?.id ?? null;
  // Only a job made another way says so, so that every resume entry written before stays valid.
  const variant = job.variant === undefined ? [] : [job.variant.made];
  const file = job.variant?.original ?? job.file;
  // A bundle is known by its members, not by its tar (made anew at every pick): the same files in
  // the same delivery are the same upload, so it resumes after a reload.
  if (job.bundle) return `portal-upload:${JSON.stringify([userId, job.projectId, 'bundle', job.bundle.deliveryId, signatureOf(job.bundle.members), ...variant])}`;
  // A file of a folder resumes only into the same delivery: another delivery's upload belongs elsewhere.
  const key = [userId, job.projectId, job.path, file.size, file.lastModified, ...(job.delivery ? [job.delivery.id] : []), ...variant];
  return `portal-upload:${JSON.stringify(key)}`;
}

function statusOf(error: DetailedError | Error): number {
  return 'originalResponse' in error && error.originalResponse ? error.originalResponse.getStatus() : 0;
}

/**
 * Network errors, 5xx, tus's transient 409/423 and the server's 408 (a stalled link; it keeps what
 * arrived) are retried; any other refusal is final.
 */
export function isRetryable(error: DetailedError | Error): boolean {
  const status = statusOf(error);
  return status === 0 || status >= 500 || status === 408 || status === 409 || status === 423;
}

function parseBody(body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return body;
  }
}

/** The spec §8 wording for a tus failure, through the same mapping as every other call. */
export function toUploadFailure(error: DetailedError | Error): UploadFailure {
  const response = 'originalResponse' in error ? error.originalResponse : null;
  if (response) {
    const raw = response.getUnderlyingObject() as AxiosResponse<unknown>;
    const withJson = { ...raw, data: parseBody(response.getBody()) };
    const axiosError = new AxiosError(error.message, AxiosError.ERR_BAD_RESPONSE, raw.config, raw.request, withJson);
    return new UploadFailure(mapApiError(axiosError), isRetryable(error));
  }
  const cause = 'causingError' in error && error.causingError ? error.causingError : error;
  return new UploadFailure(mapApiError(cause), true);
}

async function forgetResume(fingerprint: string): Promise<void> {
  const storage = defaultOptions.urlStorage;
  const entries = await storage.findUploadsByFingerprint(fingerprint);
  await Promise.all(entries.map((entry) => storage.removeUpload(entry.urlStorageKey)));
}

/**
 * What the server holds of a paused file the user cancels, removed there (a tus termination) and
 * forgotten here. Its resume entries are found by the fingerprint up to the form it was sent in
 * (`variant`: the de-identified copy's name comes last), so that form need not be made again.
 */
export async function discardResumable(job: UploadJob, httpStack: HttpStack = apiClientHttpStack): Promise<void> {
  const key = `tus::${fingerprintOf({ ...job, variant: undefined })}`;
  // The fingerprint is a JSON array: without its closing bracket it is the start of each variant's.
  const stem = key.slice(0, -1);
  const storage = defaultOptions.urlStorage;
  const entries = (await storage.findAllUploads()).filter((e) => e.urlStorageKey.startsWith(`${key}::`) || e.urlStorageKey.startsWith(`${stem},`));
  await Promise.all(
    entries.map(async (entry) => {
      // A termination that fails leaves the part to the server's 24 h expiry; it is forgotten here either way.
      if (entry.uploadUrl) await Upload.terminate(entry.uploadUrl, { httpStack, retryDelays: [] }).catch(() => undefined);
      await storage.removeUpload(entry.urlStorageKey);
    }),
  );
}

function newest(previous: PreviousUpload[]): PreviousUpload | undefined {
  return [...previous].sort((a, b) => Date.parse(b.creationTime) - Date.parse(a.creationTime))[0];
}

/** Drops resume entries the server has certainly forgotten, so localStorage does not grow forever. */
export async function pruneExpiredResumes(now = Date.now()): Promise<void> {
  const storage = defaultOptions.urlStorage;
  const entries = await storage.findAllUploads();
  const stale = entries.filter((e) => e.urlStorageKey.includes('portal-upload:') && now - Date.parse(e.creationTime) > RESUME_MAX_AGE_MS);
  await Promise.all(stale.map((e) => storage.removeUpload(e.urlStorageKey)));
}

function metadataOf(job: UploadJob): Record<string, string> {
  if (job.bundle) return { filename: job.file.name, delivery: String(job.bundle.deliveryId), [BUNDLE_METADATA_KEY]: BUNDLE_METADATA_VALUE };
  if (job.delivery) return { filename: job.file.name, delivery: String(job.delivery.id), relativePath: job.delivery.relativePath };
  return { filename: job.file.name, studypetitionid: String(job.projectId), ...(job.replaces !== undefined && { replaces: String(job.replaces) }) };
}

export function createTusTransport(options: TusOptions = {}): Transport {
  // One transport serves the page (UploadDialog's default), so the files it sends share one answer.
  const serverChunkBytes = chunkBytesReader();
  // A file that goes whole with its creation has no chunks: it asks nothing, so a folder of
  // thousands of small files makes no request more.
  const chunkSizeFor = (file: File): number | Promise<number> =>
    options.chunkSize ?? (file.size > WITH_CREATION_MAX_BYTES ? serverChunkBytes() : DEFAULT_CHUNK_BYTES);
  return (job, callbacks) => {
    const fingerprint = fingerprintOf(job);
    let cancelled = false;
    // Made once the chunk size is known; cancel and abandon before that have nothing to stop.
    let upload: Upload | undefined;
    let settle: { resolve: (result: UploadResult) => void; reject: (failure: UploadFailure) => void } | undefined;
    const result = new Promise<UploadResult>((resolve, reject) => {
      settle = { resolve, reject };
    });
    const makeUpload = (chunkSize: number) =>
      new Upload(job.file, {
        endpoint: TUS_ENDPOINT,
        metadata: metadataOf(job),
        chunkSize,
        // A small file goes with its creation: one request instead of two, which for a folder of
        // small files (a CD export) halves the requests and the server's work per file.
        uploadDataDuringCreation: job.file.size <= Math.min(chunkSize, WITH_CREATION_MAX_BYTES),
        retryDelays: options.retryDelays ?? RETRY_DELAYS_MS,
        onShouldRetry: (error) => isRetryable(error),
        httpStack: options.httpStack ?? apiClientHttpStack,
        fingerprint: () => Promise.resolve(fingerprint),
        storeFingerprintForResuming: true,
        removeFingerprintOnSuccess: true,
        onProgress: (bytesSent) => callbacks.onProgress(bytesSent),
        onSuccess: ({ lastResponse }) => {
          const id = Number(lastResponse.getHeader('Portal-File-Id'));
          settle?.resolve({ fileId: Number.isInteger(id) && id > 0 ? id : null });
        },
        onError: (error) => {
          const failure = toUploadFailure(error);
          // A refused upload is gone on the server (issue 13): never try to resume it.
          if (!failure.retryable) void forgetResume(fingerprint);
          settle?.reject(failure);
        },
      });
    const begin = async () => {
      const chunkSize = await chunkSizeFor(job.file);
      if (cancelled) return;
      const started = makeUpload(chunkSize);
      upload = started;
      const previous = newest(await started.findPreviousUploads());
      if (cancelled) return;
      if (previous) {
        started.resumeFromPreviousUpload(previous);
        callbacks.onResume();
      }
      started.start();
    };
    begin().catch((error: unknown) => settle?.reject(toUploadFailure(error instanceof Error ? error : new Error(String(error)))));
    return {
      result,
      cancel: async () => {
        cancelled = true;
        await upload?.abort(true);
        await forgetResume(fingerprint);
      },
      abandon: () => {
        cancelled = true;
        void upload?.abort(false);
      },
    };
  };
}
