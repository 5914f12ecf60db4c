// Reads POST /upload-study-petitions-files: one `studypetitionid` field and one `file` part, in
// either order. With the field first (as the web app sends it) the project is authorised before
// the first byte of the file is read. With the file first (as `form.append('file', f)` then the
// field sends it) only the caller's role is checked before its bytes (a SysUser, who may upload
// nowhere, is refused at once); the file then goes through the same pipeline into storage as a
// pending upload that no row shows, bounded by MAX_UPLOAD_BYTES, and is committed once the field
// names a project the caller may upload to, or removed at once when it does not (404/403 as with
// the field first), when the body ends without the field, or when it breaks. Holding bytes of
// uploads that end up refused is what let such uploads fill the disk (issue 12, item 8): they are
// never kept past their own request, and no more of them than of the uploads that are accepted.
// Either way the file streams into storage as it arrives; only a small request (at most
// WHOLE_UPLOAD_MAX_BYTES, uploads.service.ts) is read whole into memory first, still never stored
// before its checks. A body the parser cannot read (not multipart, cut short, another boundary)
// answers 400 in words and keeps nothing. No byte for UPLOAD_IDLE_TIMEOUT_SECONDS answers 408 then,
// whatever the upload is waiting on at that moment (issue 31, item 12); it cleans up behind.
import type { Multipart } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import type { Actor } from '../auth/index.js';
import { AppError, badRequest } from '../errors/app-error.js';
import { parseId } from '../http/params.js';
import type { ReceivedUpload, UploadsService } from './uploads.service.js';
import { UploadInterruptedError } from './upload-pipeline.js';

export const NO_BOUNDARY_MESSAGE =
  'The upload is marked as multipart/form-data but names no boundary between its parts; send it as a form ' +
  '(browsers and HTTP libraries add the boundary themselves when given form data)';

export const MALFORMED_BODY_MESSAGE =
  'The upload is not a complete multipart/form-data body: it ended early, or its parts are not separated by the ' +
  'boundary its Content-Type names; send the file again as a form (browsers and HTTP libraries build the body themselves)';

/** No byte of the body arrived for the idle timeout: the upload is stopped and nothing is kept. */
export class UploadStalledError extends AppError {
  constructor(idleTimeoutMs: number) {
    super(
      408,
      `No data arrived for ${Math.round(idleTimeoutMs / 1000)} seconds, so the upload was stopped and nothing was kept; ` +
        'check the connection and upload the file again',
    );
    this.name = 'UploadStalledError';
  }
}

export interface MultipartUploadOptions {
  /** No byte for this long stops the upload (UPLOAD_IDLE_TIMEOUT_SECONDS). */
  idleTimeoutMs: number;
}

export async function receiveMultipartUpload(
  request: FastifyRequest,
  uploads: UploadsService,
  actor: Actor,
  opts: MultipartUploadOptions,
): Promise<{ upload: ReceivedUpload; projectId: number; replaces: number | undefined }> {
  if (!request.isMultipart()) throw new AppError(415, 'The upload must be sent as multipart/form-data');
  // The parser cannot split a body without its boundary and would fail with its own message (a 500).
  if (!hasBoundary(request.headers['content-type'])) throw badRequest(NO_BOUNDARY_MESSAGE);
  const raw = request.raw;
  // The client going away, or stalling, aborts the write, so no partial object is left.
  const aborted = new AbortController();
  const onClose = () => {
    if (!raw.complete) aborted.abort(new AppError(400, 'The upload was interrupted before the end of the file'));
  };
  raw.once('close', onClose);
  let storing = false;
  const onIdle = () => {
    const reason = new UploadStalledError(opts.idleTimeoutMs);
    aborted.abort(reason);
    // Before the file part the parser is waiting for bytes that will not come and nothing can stop
    // it but the end of the connection; there is nothing stored to clean up yet.
    if (!storing) raw.destroy(reason);
  };
  // A socket timeout counts bytes in either direction, so a body that keeps flowing, however slowly,
  // is never cut. Once the body is complete the timeout is lifted: syncing a large file to disk
  // sends nothing and must not close the connection that waits for the answer.
  raw.setTimeout(opts.idleTimeoutMs, onIdle);
  const bodyComplete = () => raw.socket?.setTimeout(0);
  raw.once('end', bodyComplete);

  let projectId: number | undefined;
  let replaces: number | undefined;
  let upload: ReceivedUpload | undefined;
  try {
    for await (const part of partsOf(request)) {
      if (part.type === 'field') {
        const value = typeof part.value === 'string' ? part.value.trim() : undefined;
        // `replaces` (issue 35): the rejected file of the project this upload answers.
        if (part.fieldname === 'replaces') {
          if (replaces !== undefined) throw badRequest('Send replaces once');
          replaces = parseId(value, 'File');
          continue;
        }
        if (part.fieldname !== 'studypetitionid') throw badRequest(`Unknown field: ${part.fieldname}`);
        if (projectId !== undefined) throw badRequest('Send studypetitionid once');
        projectId = parseId(value, 'Project');
        continue;
      }
      if (part.fieldname !== 'file') throw badRequest(`Unknown file field: ${part.fieldname}; send the file as "file"`);
      if (upload) throw badRequest('Send one file per upload');
      // Named before the file: a file that cannot be replaced refuses the upload before its bytes.
      if (projectId !== undefined && replaces !== undefined) await uploads.checkReplaces(actor, projectId, replaces);
      storing = true;
      const receiving = uploads.receive(actor, {
        fileName: part.filename,
        source: part.file,
        signal: aborted.signal,
        projectId,
        // The whole request's length bounds the file's: a small upload is hashed inline.
        expectedBytes: declaredLength(request),
      });
      upload = await untilAborted(receiving, aborted.signal, (late) => void uploads.discard(late).catch(() => undefined));
      storing = false;
    }
    if (projectId === undefined) throw badRequest('studypetitionid and file are required');
    if (!upload) throw badRequest('file is required');
  } catch (err) {
    if (upload) await uploads.discard(upload);
    throw aborted.signal.reason instanceof UploadStalledError ? aborted.signal.reason : err;
  } finally {
    raw.off('close', onClose);
    raw.off('timeout', onIdle);
    raw.off('end', bodyComplete);
    // Back to the server-wide idle timeout for the rest of this connection.
    raw.socket?.setTimeout(request.server.server.timeout);
  }
  return { upload, projectId, replaces };
}

/**
 * `work`, or the signal's reason as soon as it aborts: a stalled upload is answered at its idle
 * timeout even when what it waits on (the database, the disk's thread pool) is slow to notice the
 * abort. The work still stops on its own, removing what it wrote (its pending record lets the
 * sweeper finish that should the process die first); a result that arrives anyway is given to
 * `late`, which must remove it.
 */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal, late: (result: T) => void): Promise<T> {
  if (signal.aborted) {
    work.then(late, () => undefined);
    return Promise.reject(signal.reason as Error);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      work.then(late, () => undefined);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    work.finally(() => signal.removeEventListener('abort', onAbort)).then(resolve, reject);
  });
}

/** The parser's limits, answered in words by http/error-handler.ts; anything else it throws is a body it could not read. */
const PARSER_ANSWERS = new Set(['FST_PARTS_LIMIT', 'FST_FILES_LIMIT', 'FST_FIELDS_LIMIT', 'FST_REQ_FILE_TOO_LARGE']);

/** The request's parts, with the parser's failures turned into answers a client can act on. */
async function* partsOf(request: FastifyRequest): AsyncGenerator<Multipart> {
  const parts = request.parts()[Symbol.asyncIterator]();
  for (;;) {
    let next: IteratorResult<Multipart>;
    try {
      next = await parts.next();
    } catch (err) {
      throw parserFailure(err);
    }
    if (next.done) return;
    yield next.value;
  }
}

function parserFailure(err: unknown): unknown {
  if (err instanceof AppError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && PARSER_ANSWERS.has(code)) return err;
  // The connection closed before the end of the body.
  if (code === 'FST_MP_PREMATURE_CLOSE') return new UploadInterruptedError({ cause: err });
  return new AppError(400, MALFORMED_BODY_MESSAGE);
}

function hasBoundary(contentType: string | undefined): boolean {
  return /;\s*boundary\s*=\s*("[^"]+"|[^\s;]+)/i.test(contentType ?? '');
}

function declaredLength(request: FastifyRequest): number | undefined {
  const length = Number(request.headers['content-length']);
  return Number.isSafeInteger(length) && length >= 0 ? length : undefined;
}
