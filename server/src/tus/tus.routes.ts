// tus 1.0 at /api/v1/uploads (creation, creation-with-upload, termination, expiration), served by
// @tus/server on its file store. Fastify's hooks run first (the session, request ids, security
// headers, then the protocol version and a PATCH's type); this route then decides access
// (tus-uploads.service.ts), hands the request to tus, and gives its answer back through Fastify, so
// errors are `{message}` like every other answer and a finished upload is committed before the
// final answer leaves. A finished upload is answered here, not by tus: its bytes became a file.
import type { IncomingMessage } from 'node:http';
import { Server } from '@tus/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { sessionOf } from '../auth/index.js';
import type { TusUploadRow } from '../db/schema.js';
import { AppError } from '../errors/app-error.js';
import { WholeFileMemory } from '../uploads/index.js';
import { isWholeDeliveryFile, receiveWholeDeliveryFile } from './tus-direct.js';
import { TusRequestBody, writePatchBodiesDirectly } from './tus-request-body.js';
import type { TusUploadsService } from './tus-uploads.service.js';
import {
  TUS_CONTENT_TYPE,
  TUS_CREATE_CONFIG,
  TUS_CREATE_SCHEMA,
  TUS_DELETE_CONFIG,
  TUS_DELETE_SCHEMA,
  TUS_HEAD_CONFIG,
  TUS_HEAD_SCHEMA,
  TUS_OPTIONS_SCHEMA,
  TUS_PATCH_CONFIG,
  TUS_PATCH_SCHEMA,
} from './tus.schemas.js';

export interface TusRoutesOptions {
  /** The path the routes are mounted at, as the client sees it ('/api/v1/uploads'). */
  basePath: string;
  /** No byte of a PATCH body for this long stops it (408); what arrived is kept for resuming. */
  idleTimeoutMs: number;
}

export const FILE_ID_HEADER = 'portal-file-id';
const TUS_VERSION = '1.0.0';
const TUS_EXTENSIONS = 'creation,creation-with-upload,termination,expiration';
const WRONG_TYPE = `Send the bytes of an upload with Content-Type: ${TUS_CONTENT_TYPE}`;
// Same-origin only: tus's CORS answers are not wanted, and lengths and types are Fastify's to set.
const DROPPED_HEADERS = /^(access-control-|content-length$|content-type$)/i;

export function tusRoutes(uploads: TusUploadsService, opts: TusRoutesOptions) {
  return (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    // The id of the upload a creation request was authorised for, for tus's naming function.
    const createdIds = new WeakMap<Request, string>();
    const tus = new Server({
      path: opts.basePath,
      datastore: uploads.store,
      ...(uploads.options.shared?.locker ? { locker: uploads.options.shared.locker } : {}),
      relativeLocation: true,
      maxSize: uploads.options.maxUploadBytes,
      allowedOrigins: () => false,
      namingFunction: (req) => {
        const id = createdIds.get(req);
        if (id === undefined) throw new Error('a tus upload was created without authorisation');
        return id;
      },
      onUploadCreate: (_req, upload) => Promise.resolve({ metadata: uploads.keptMetadata(upload.metadata) }),
    });
    writePatchBodiesDirectly(tus);

    fastify.addHook('onClose', () => uploads.options.shared?.close());
    // Every answer of these routes speaks tus, refusals of the session and errors included.
    fastify.addHook('onSend', (_request, reply, payload, done) => {
      reply.header('tus-resumable', TUS_VERSION);
      done(null, payload);
    });
    // Before any upload is looked at: the protocol version (OPTIONS is how a client learns it), and
    // a PATCH's type, refused before its body is read.
    fastify.addHook('onRequest', (request, _reply, done) => done(protocolRefusal(request)));
    // The body is tus's to read, as a stream; Fastify must not parse or buffer it.
    app.addContentTypeParser(TUS_CONTENT_TYPE, (_request, _payload, done) => done(null));

    // A delivery's file sent whole with its creation is taken in front of tus (tus-direct.ts);
    // with the shared store every request stays with tus.
    const wholeFiles = uploads.options.shared === undefined;
    const memory = new WholeFileMemory();
    // The store may fail under a stalled body (S3 refuses a part cut short): the answer is still the
    // stall, with where to resume read from the store when tus gave no offset.
    const stalledError = async (uploadId: string | undefined, offset: string | null): Promise<AppError> => {
      const resumeAt =
        offset ?? (uploadId === undefined ? null : await uploads.store.getUpload(uploadId).then((u) => (u.offset === undefined ? null : String(u.offset)), () => null));
      return new AppError(
        408,
        `No data arrived for ${Math.round(opts.idleTimeoutMs / 1000)} seconds, so the upload was paused; ` +
          'the bytes that arrived are kept: check the connection and resume the upload',
        resumeAt !== null ? { 'upload-offset': resumeAt } : {},
      );
    };

    const handle = async (request: FastifyRequest, reply: FastifyReply) => {
      const { actor } = sessionOf(request);
      const wholeLength = wholeFiles && isWholeDeliveryFile(request) ? Number(request.headers['upload-length']) : 0;
      if (wholeLength > 0 && memory.take(wholeLength)) {
        try {
          if (await receiveWholeDeliveryFile(uploads, actor, request, reply, opts)) return reply;
        } finally {
          memory.giveBack(wholeLength);
        }
      }
      const created =
        request.method === 'POST'
          ? await uploads.authorizeCreation(actor, {
              uploadLength: header(request, 'upload-length'),
              deferLength: header(request, 'upload-defer-length'),
              concat: header(request, 'upload-concat'),
              metadata: header(request, 'upload-metadata'),
            })
          : undefined;
      const createdId = created?.id;
      const row = created === undefined ? await uploads.requireUpload(actor, (request.params as { id: string }).id) : undefined;
      if (row?.state === 'finished') return answerFinished(uploads, request, reply, row);

      const uploadId = row?.id ?? createdId;
      const bringsBytes = request.headers['content-type'] === TUS_CONTENT_TYPE && (request.method === 'POST' || request.method === 'PATCH');
      const startOffset = request.method === 'PATCH' ? Number(header(request, 'upload-offset')) : 0;
      // The upload's whole length, when known: a small upload's digest is taken inline.
      const length = row ? Number(row.size) : Number(header(request, 'upload-length') ?? Number.NaN);
      const expectedBytes = Number.isSafeInteger(length) ? length : undefined;
      const tap = bringsBytes && uploadId !== undefined && Number.isSafeInteger(startOffset) ? uploads.beginDigest(uploadId, startOffset, expectedBytes) : undefined;
      const body = bringsBytes ? new TusRequestBody(request.raw, opts.idleTimeoutMs, tap) : undefined;
      const tusRequest = new Request(`http://portal${request.url.split('?')[0] ?? ''}`, {
        method: request.method,
        headers: headersOf(request.raw),
        ...(body ? { body: body.web, duplex: 'half' } : {}),
      });
      if (createdId !== undefined) createdIds.set(tusRequest, createdId);
      let response: Response;
      try {
        response = await tus.handleWeb(tusRequest);
      } catch (err) {
        if (tap && uploadId !== undefined) uploads.endDigest(uploadId, tap, undefined);
        if (createdId !== undefined) await uploads.abandonCreation(createdId);
        if (body?.stalled()) throw await stalledError(uploadId, null);
        throw err;
      } finally {
        body?.release(request.server.server.timeout);
      }
      if (tap && uploadId !== undefined) {
        const stored = response.status < 400 ? response.headers.get('upload-offset') : null;
        uploads.endDigest(uploadId, tap, stored === null ? undefined : Number(stored));
      }
      const text = await response.text();
      if (response.status >= 400) {
        // A creation that failed has no Location to resume from: nothing of it may stay.
        if (createdId !== undefined) await uploads.abandonCreation(createdId);
        const status = tusStatus(response.status, text);
        if (status >= 500) request.log.error({ status: response.status, tus: text.trim() }, 'the tus server failed');
        if (body?.stalled()) throw await stalledError(uploadId, null);
        throw new AppError(status, tusMessage(response.status, text));
      }
      if (request.method === 'DELETE' && row) await uploads.remove(row.id);
      const offsetHeader = response.headers.get('upload-offset');
      // Bytes arrived: check the first ones, and finish the upload if they were the last. A refusal
      // here answers with its own status alone (no Location of an upload that is gone).
      if (request.method !== 'DELETE' && offsetHeader !== null) {
        // A creation's record is the one just made; finishing claims it, so a removal meanwhile is noticed there.
        const current = row ?? created;
        const file = current ? await uploads.afterWrite(actor, current, Number(offsetHeader)) : undefined;
        if (file) reply.header(FILE_ID_HEADER, String(file.id));
      }
      for (const [name, value] of response.headers) if (!DROPPED_HEADERS.test(name)) reply.header(name, value);
      reply.status(response.status);
      if (body?.stalled()) throw await stalledError(uploadId, offsetHeader);
      return reply.send();
    };

    // What the server speaks, asked before signing in (tus's discovery).
    app.options('/uploads', { schema: TUS_OPTIONS_SCHEMA, config: { public: true } }, (_request, reply) =>
      reply
        .status(204)
        .headers({ 'tus-version': TUS_VERSION, 'tus-extension': TUS_EXTENSIONS, 'tus-max-size': String(uploads.options.maxUploadBytes) })
        .send(),
    );
    app.post('/uploads', { config: TUS_CREATE_CONFIG, schema: TUS_CREATE_SCHEMA }, handle);
    app.route({ method: 'HEAD', url: '/uploads/:id', config: TUS_HEAD_CONFIG, schema: TUS_HEAD_SCHEMA, handler: handle });
    app.patch('/uploads/:id', { config: TUS_PATCH_CONFIG, schema: TUS_PATCH_SCHEMA }, handle);
    app.delete('/uploads/:id', { config: TUS_DELETE_CONFIG, schema: TUS_DELETE_SCHEMA }, handle);
  };
}

/**
 * An upload whose last byte arrived is complete until it would have expired: HEAD says so with its
 * whole length and its file, a PATCH at its end (a client resending what it lost the answer to)
 * answers the same without storing anything, and DELETE forgets it (the file stays).
 */
async function answerFinished(uploads: TusUploadsService, request: FastifyRequest, reply: FastifyReply, row: TusUploadRow): Promise<FastifyReply> {
  if (request.method === 'DELETE') {
    await uploads.remove(row.id);
    return reply.status(204).send();
  }
  const size = String(row.size);
  const complete = { 'upload-offset': size, 'upload-length': size, 'cache-control': 'no-store', [FILE_ID_HEADER]: String(row.file_id) };
  const bringsBytes = request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0;
  if (request.method === 'PATCH' && (header(request, 'upload-offset') !== size || bringsBytes)) {
    throw new AppError(409, `The upload is already complete: all ${size} bytes arrived and it became file ${row.file_id} (Portal-File-Id); send nothing more`, complete);
  }
  return reply
    .status(request.method === 'HEAD' ? 200 : 204)
    .headers(complete)
    .send();
}

/** Why a request (other than OPTIONS) does not speak this server's tus, if it does not. */
function protocolRefusal(request: FastifyRequest): AppError | undefined {
  if (request.method === 'OPTIONS') return undefined;
  const version = header(request, 'tus-resumable');
  if (version !== TUS_VERSION) {
    const message = version === undefined ? '' : `This server speaks tus ${TUS_VERSION} only (Tus-Version), not ${printableVersion(version)}. `;
    return new AppError(412, `${message}Send Tus-Resumable: ${TUS_VERSION} with every upload request`, { 'tus-version': TUS_VERSION });
  }
  const type = header(request, 'content-type')?.split(';')[0]?.trim().toLowerCase();
  if (request.method === 'PATCH' && type !== TUS_CONTENT_TYPE) return new AppError(415, WRONG_TYPE);
  return undefined;
}

/** A client's version in a message: short, and nothing that could break the line. */
function printableVersion(version: string): string {
  return version.replace(/[^\w.-]/g, '?').slice(0, 20);
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

function headersOf(raw: IncomingMessage): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < raw.rawHeaders.length; i += 2) headers.append(raw.rawHeaders[i]!, raw.rawHeaders[i + 1]!);
  return headers;
}

/**
 * tus answers 403 for a missing Content-Type or Upload-Offset; those are a wrong type and a bad
 * request. A lock it could not get in time (another request holds the upload) is 423 Locked.
 */
function tusStatus(status: number, tusBody: string): number {
  if (status === 500 && tusBody.includes('acquire lock')) return 423;
  if (status === 500 && diskFull(tusBody)) return 507;
  if (status !== 403) return status;
  return tusBody.toLowerCase().includes('content-type') ? 415 : 400;
}

/** tus passes a failed write's message on: a full disk says so in it. */
function diskFull(tusBody: string): boolean {
  return /enospc|edquot|no space left|disk may be full/i.test(tusBody);
}

/** tus's own answers, in words a person can act on. */
function tusMessage(status: number, tusBody: string): string {
  const body = tusBody.toLowerCase();
  if (status === 409) {
    return 'The upload continues from another byte than the one sent (Upload-Offset); ask where it stands (HEAD) and continue from there';
  }
  if (status === 500 && body.includes('acquire lock')) {
    return 'Another request is working on this upload; ask where it stands (HEAD) in a moment and continue from there';
  }
  if (status === 507 || (status === 500 && diskFull(body))) {
    return 'The server is low on storage and could not save this chunk; the bytes that arrived before it are kept. ' +
      'Try again later, and tell the portal’s administrator so that space can be freed or added.';
  }
  if (status === 413) return 'More bytes were sent than the upload announced (Upload-Length); upload the file again';
  if (status === 404 || status === 410) return 'Upload not found';
  if (body.includes('content-type')) return WRONG_TYPE;
  if (body.includes('upload-offset')) return 'Send Upload-Offset with the byte the chunk starts at';
  if (body.includes('completed')) return 'The upload is already complete';
  if (status === 400 && body.startsWith('invalid')) return `The upload request has an invalid header: ${tusBody.trim().slice(8, 100)}`;
  if (status === 400 && body.includes('aborted')) return 'The upload was interrupted before the end of the chunk; resume it';
  if (status >= 500) return 'Internal server error';
  return 'The upload request could not be processed';
}
