// What the OpenAPI document says of the tus routes (tus.routes.ts): the protocol's request headers
// and PATCH body (documented only: tus reads and checks them itself, with its own answers), and the
// headers of each answer. docs/api.md has the rest.
import { z } from 'zod';
import { BAD_REQUEST, errorResponse, FORBIDDEN, noBody, NOT_FOUND, type Headers } from '../http/responses.js';

export const TUS_CONTENT_TYPE = 'application/offset+octet-stream';

const UploadParams = z.object({ id: z.string().describe('The upload id from the Location of its creation') });
const TUS_RESUMABLE = z.literal('1.0.0').describe('The protocol version; every request sends it');
const BYTES_TYPE = z.literal(TUS_CONTENT_TYPE).describe('When the request carries bytes of the file');
const OFFSET = { schema: { type: 'integer' as const } };

const ANSWER_RESUMABLE: Headers = { 'Tus-Resumable': { description: '1.0.0', required: true } };
const EXPIRES: Headers = { 'Upload-Expires': { description: 'When an unfinished upload is removed (RFC 9110 date)' } };
const FILE_ID: Headers = { 'Portal-File-Id': { description: 'After the last byte: the id of the new file', schema: { type: 'integer' } } };
const CHUNK_BODY = { contentType: TUS_CONTENT_TYPE, description: 'The next bytes of the file, from Upload-Offset' };

const ERRORS = {
  400: BAD_REQUEST,
  403: FORBIDDEN,
  404: errorResponse('Upload not found (another user’s, finished, removed or expired)'),
  412: errorResponse('Tus-Resumable missing or not 1.0.0 (the answer carries Tus-Version)'),
};

export const TUS_CREATE_CONFIG = {
  requestHeaders: z.object({
    'Tus-Resumable': TUS_RESUMABLE,
    'Upload-Length': z.string().regex(/^\d+$/).describe('The size of the file in bytes'),
    'Upload-Metadata': z.string().describe('filename and studypetitionid (or delivery and relativePath), base64, comma-separated'),
    'Content-Type': BYTES_TYPE.optional(),
  }),
  rawBody: { ...CHUNK_BODY, description: 'Optional (creation-with-upload): the first bytes, or the whole file' },
};

export const TUS_OPTIONS_SCHEMA = {
  summary: 'What the tus server speaks (tus 1.0 discovery): Tus-Version, Tus-Extension and Tus-Max-Size; no token needed. docs/api.md',
  response: {
    204: noBody('No body: what the server speaks is in the headers', {
      'Tus-Version': { description: 'The protocol versions spoken: 1.0.0', required: true },
      'Tus-Extension': { description: 'creation, creation-with-upload, termination, expiration', required: true },
      'Tus-Max-Size': { description: 'The largest upload accepted, in bytes (MAX_UPLOAD_BYTES)', required: true, ...OFFSET },
      ...ANSWER_RESUMABLE,
    }),
  },
};

export const TUS_CREATE_SCHEMA = {
  summary:
    'Create a resumable upload (tus 1.0 creation, creation-with-upload: Tus-Resumable, Upload-Length, Upload-Metadata); ' +
    'checked before any byte is stored. docs/api.md',
  response: {
    201: noBody('Created', {
      Location: { description: 'The upload’s URL, relative to this server', required: true },
      ...ANSWER_RESUMABLE,
      ...EXPIRES,
      'Upload-Offset': { description: 'With bytes sent: how many were stored', ...OFFSET },
      ...FILE_ID,
    }),
    ...ERRORS,
    404: NOT_FOUND,
    413: errorResponse('Upload-Length over MAX_UPLOAD_BYTES, or past the company’s storage allowance'),
    415: errorResponse('Empty, or first bytes that are not what the name says'),
    422: errorResponse('File name over 255 characters'),
    429: errorResponse('Too many unfinished uploads (UPLOAD_MAX_OPEN_PER_USER)'),
    507: errorResponse('The server is low on storage (MIN_FREE_BYTES), or the disk filled while writing'),
  },
};

const RESUMABLE_ONLY = z.object({ 'Tus-Resumable': TUS_RESUMABLE });
// A HEAD route of its own (not a GET's twin) is part of the API: @fastify/swagger lists it only when told.
export const TUS_HEAD_CONFIG = { requestHeaders: RESUMABLE_ONLY, swagger: { exposeHeadRoute: true } };
export const TUS_HEAD_SCHEMA = {
  summary: 'Where an upload of yours stands (tus 1.0). docs/api.md',
  params: UploadParams,
  response: {
    200: noBody('No body: the offset in the headers; once complete, the whole length and Portal-File-Id', {
      'Upload-Offset': { description: 'The bytes stored so far; continue from here', required: true, ...OFFSET },
      'Upload-Length': { description: 'The size announced at creation', ...OFFSET },
      ...ANSWER_RESUMABLE,
      ...FILE_ID,
    }),
    ...ERRORS,
    423: errorResponse('Another request is working on (or finishing) this upload and did not let go in time'),
  },
};

export const TUS_PATCH_CONFIG = {
  requestHeaders: z.object({
    'Tus-Resumable': TUS_RESUMABLE,
    'Upload-Offset': z.string().regex(/^\d+$/).describe('The byte the chunk starts at: where the upload stands'),
    'Content-Type': z.literal(TUS_CONTENT_TYPE),
  }),
  rawBody: CHUNK_BODY,
};
export const TUS_PATCH_SCHEMA = {
  summary: 'Send the next bytes of an upload of yours (tus 1.0); the last one commits the file and answers Portal-File-Id. docs/api.md',
  params: UploadParams,
  response: {
    204: noBody('Stored', {
      'Upload-Offset': { description: 'The bytes stored so far', required: true, ...OFFSET },
      ...ANSWER_RESUMABLE,
      ...EXPIRES,
      ...FILE_ID,
    }),
    ...ERRORS,
    408: errorResponse('No byte for UPLOAD_IDLE_TIMEOUT_SECONDS; what arrived is kept'),
    409: errorResponse('Upload-Offset is not where the upload stands, or the upload is already complete'),
    413: errorResponse('More bytes than Upload-Length'),
    415: errorResponse('Not sent as application/offset+octet-stream, or first bytes that are not what the name says (the upload is removed)'),
    423: errorResponse('Another request is working on (or finishing) this upload and did not let go in time'),
  },
};

export const TUS_DELETE_CONFIG = { requestHeaders: RESUMABLE_ONLY };
export const TUS_DELETE_SCHEMA = {
  summary: 'Cancel an upload of yours (tus 1.0 termination): what arrived is removed. docs/api.md',
  params: UploadParams,
  response: {
    204: noBody('Removed', ANSWER_RESUMABLE),
    ...ERRORS,
    423: errorResponse('Another request is working on this upload and did not let go in time'),
    507: errorResponse('The disk filled while writing; the bytes before the chunk are kept'),
  },
};
