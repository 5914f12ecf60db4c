// What the OpenAPI document says of the tus routes (tus.routes.ts). tus's own headers carry the
// protocol, so the schemas only name the path's upload id and the answers; docs/api.md has the rest.
import { z } from 'zod';
import { BAD_REQUEST, errorResponse, FORBIDDEN, NOT_FOUND } from '../http/responses.js';

const UploadParams = z.object({ id: z.string().describe('The upload id from the Location of its creation') });
const noBody = (description: string) => z.undefined().describe(description);

export const TUS_OPTIONS_SCHEMA = {
  summary: 'What the tus server speaks (tus 1.0 discovery): Tus-Version, Tus-Extension and Tus-Max-Size; no token needed. docs/api.md',
  response: { 204: noBody('Tus-Version, Tus-Extension, Tus-Max-Size, Tus-Resumable') },
};

export const TUS_CREATE_SCHEMA = {
  summary:
    'Create a resumable upload (tus 1.0 creation, creation-with-upload: Tus-Resumable, Upload-Length, Upload-Metadata); ' +
    'checked before any byte is stored. docs/api.md',
  response: {
    201: noBody('Created: Location, Upload-Expires; with every byte sent, also Portal-File-Id (the new file)'),
    400: errorResponse('No Upload-Length, bad Upload-Metadata, no filename or studypetitionid'),
    403: FORBIDDEN,
    404: NOT_FOUND,
    413: errorResponse('Upload-Length over MAX_UPLOAD_BYTES'),
    412: errorResponse('Tus-Resumable missing or not 1.0.0 (the answer carries Tus-Version)'),
    415: errorResponse('Empty, or first bytes that are not what the name says'),
    422: errorResponse('File name over 255 characters'),
    429: errorResponse('Too many unfinished uploads (UPLOAD_MAX_OPEN_PER_USER)'),
  },
};

export const TUS_UPLOAD_SCHEMA = {
  summary:
    'An upload of yours (tus 1.0): HEAD where it stands, PATCH the next bytes (the last one commits the file and answers ' +
    'Portal-File-Id), DELETE cancels it. docs/api.md',
  params: UploadParams,
  response: {
    200: noBody('HEAD: Upload-Offset and Upload-Length; once complete, the whole length and Portal-File-Id'),
    204: noBody('PATCH: the new Upload-Offset, after the last byte also Portal-File-Id; DELETE: removed'),
    400: BAD_REQUEST,
    403: FORBIDDEN,
    404: errorResponse('Upload not found (another user’s, finished, removed or expired)'),
    408: errorResponse('No byte for UPLOAD_IDLE_TIMEOUT_SECONDS; what arrived is kept'),
    409: errorResponse('Upload-Offset is not where the upload stands, or the upload is already complete'),
    412: errorResponse('Tus-Resumable missing or not 1.0.0 (the answer carries Tus-Version)'),
    413: errorResponse('More bytes than Upload-Length'),
    415: errorResponse('A PATCH not sent as application/offset+octet-stream, or first bytes that are not what the name says (the upload is removed)'),
    423: errorResponse('Another request is working on (or finishing) this upload and did not let go in time'),
  },
};
