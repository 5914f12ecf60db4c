// The common case of a folder's file, taken in front of @tus/server: a tus creation-with-upload
// POST whose body is the whole file (Upload-Length equals Content-Length), naming a delivery. The
// web app sends every file of a folder that fits in one chunk this way, and a CD export is
// thousands of small files; through the library each one cost an empty file made and opened again,
// a Web Request and Response around the request and three write transactions (docs/performance.md,
// "A folder's small files in tar bundles"). Here the same checks run first (authentication, tenant,
// role, relativePath, size and per-user limits: TusUploadsService.authorizeWholeDeliveryFile), then
// the body is read into memory, written to a file of its own in one call, hashed, recorded in a
// transaction shared with the files arriving at the same moment, and moved into storage; the answer
// is tus's: 201, Location, Upload-Offset (the whole length), Tus-Resumable.
//
// Nothing is kept of a body cut short (the client went away, or it stalled): no upload record
// exists for it to be resumed from, and none is needed. A tus client only resumes an upload whose
// creation answered 2xx with a Location; tus-js-client (4.x, lib/upload.js `_createUpload`) sets
// its upload URL only from a successful creation's Location, and on a failed one retries through
// `start()`, which finds no URL and creates the upload again. Every other tus request (PATCH,
// HEAD, DELETE, creations without the whole body, files over WHOLE_FILE_MAX_BYTES) and every
// request with the shared store (TUS_STORE=shared, where a delivery's files may arrive at several
// API nodes, which this path's in-process bookkeeping cannot see) stays with @tus/server.
import { writeFile } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { promisify } from 'node:util';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Actor } from '../auth/index.js';
import { AppError, badRequest } from '../errors/app-error.js';
import { sha256Of } from '../uploads/index.js';
import type { TusUploadsService } from './tus-uploads.service.js';

// The callback form works on a plain descriptor, without the FileHandle the promise form makes.
const writeFileAsync = promisify(writeFile);

/** Bodies up to this size are taken here, read into memory whole: a CD export's DICOM files are far smaller. */
export const WHOLE_FILE_MAX_BYTES = 1024 * 1024;

const TUS_CONTENT_TYPE = 'application/offset+octet-stream';
/** Upload-Metadata naming a delivery (the value is checked with the rest of the metadata). */
const DELIVERY_KEY = /(?:^|,)\s*delivery\s+\S/;
/** Upload-Metadata naming a bundle of a delivery's files (contract/src/delivery-bundle.ts). */
const BUNDLE_KEY = /(?:^|,)\s*bundle(?:\s|,|$)/;

/** Whether `request` is a delivery's file sent whole with its creation, the case taken here. */
export function isWholeDeliveryFile(request: FastifyRequest): boolean {
  const h = request.headers;
  if (request.method !== 'POST' || h['content-type'] !== TUS_CONTENT_TYPE || h['tus-resumable'] !== '1.0.0') return false;
  // Anything tus would treat specially is tus's to answer.
  if (h['upload-concat'] !== undefined || h['upload-defer-length'] !== undefined || h['x-http-method-override'] !== undefined) return false;
  const length = h['upload-length'];
  if (typeof length !== 'string' || !/^[1-9]\d{0,15}$/.test(length) || h['content-length'] !== length) return false;
  if (Number(length) > WHOLE_FILE_MAX_BYTES) return false;
  const metadata = h['upload-metadata'];
  // A bundle of a folder's files is read whole once it arrived (DeliveriesService.addBundle): tus's.
  return typeof metadata === 'string' && DELIVERY_KEY.test(metadata) && !BUNDLE_KEY.test(metadata);
}

export interface WholeFileOptions {
  /** The path the tus routes are mounted at ('/api/v1/uploads'), for the Location. */
  basePath: string;
  /** No byte of the body for this long stops the request (408); nothing of it is kept. */
  idleTimeoutMs: number;
}

/**
 * Receives a request isWholeDeliveryFile took. Answers false, having done nothing, when the
 * metadata names no delivery after all: the caller then hands the request to tus.
 */
export async function receiveWholeDeliveryFile(
  uploads: TusUploadsService,
  actor: Actor,
  request: FastifyRequest,
  reply: FastifyReply,
  opts: WholeFileOptions,
): Promise<boolean> {
  const file = await uploads.authorizeWholeDeliveryFile(actor, {
    uploadLength: request.headers['upload-length'] as string,
    deferLength: undefined,
    concat: undefined,
    metadata: request.headers['upload-metadata'] as string,
  });
  if (!file) return false;
  let sha256: string;
  try {
    const body = await readWhole(request.raw, opts.idleTimeoutMs, request.server.server.timeout);
    if (body === 'stalled') {
      throw new AppError(
        408,
        `No data arrived for ${Math.round(opts.idleTimeoutMs / 1000)} seconds, so the file was not kept; check the connection and send it again`,
        { 'tus-resumable': '1.0.0', connection: 'close' },
      );
    }
    // Content-Length bounds what Node reads as this request's body, so only fewer bytes can come.
    if (body.length !== file.size) throw badRequest('The upload was interrupted before the end of the file; send it again');
    sha256 = sha256Of(body);
    // Private to the service account, as stored objects are: storage then only links it. Not
    // synced (completion syncs the delivery). In the thread pool, not at once: creating a file
    // waits for the filesystem's journal, which other writers to the disk can keep busy (0.7 ms
    // a file was measured on a shared machine, serialising a folder's files on the main thread).
    await writeFileAsync(file.path, body, { flag: 'wx', mode: 0o600 });
  } catch (err) {
    await rm(file.path, { force: true });
    file.done();
    throw err;
  }
  await uploads.addWholeDeliveryFile(file, sha256);
  reply.status(201);
  reply.header('tus-resumable', '1.0.0');
  reply.header('upload-offset', String(file.size));
  reply.header('location', `${opts.basePath}/${file.id}`);
  await reply.send();
  return true;
}

/**
 * The request's whole body, or 'stalled' when nothing arrived for `idleTimeoutMs`. Rejects when
 * the client goes away before the end. The server's own timeout is put back afterwards.
 */
function readWhole(raw: IncomingMessage, idleTimeoutMs: number, serverTimeout: number): Promise<Buffer | 'stalled'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    // A body that arrived whole while the checks ran (most small files) cannot stall.
    const watched = !raw.complete;
    const finish = () => {
      raw.off('data', onData);
      raw.off('end', onEnd);
      raw.off('close', onClose);
      if (watched) {
        raw.off('timeout', onIdle);
        raw.socket?.setTimeout(serverTimeout);
      }
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
    };
    const onEnd = () => {
      finish();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received));
    };
    const onClose = () => {
      if (raw.complete) return;
      finish();
      reject(badRequest('The upload was interrupted before the end of the file; send it again'));
    };
    const onIdle = () => {
      finish();
      raw.pause();
      resolve('stalled');
    };
    // The client may have gone while the checks ran: its 'close' was then already emitted.
    if (raw.destroyed) return reject(badRequest('The upload was interrupted before the end of the file; send it again'));
    raw.on('data', onData);
    raw.once('end', onEnd);
    raw.once('close', onClose);
    if (watched) raw.setTimeout(idleTimeoutMs, onIdle);
  });
}
