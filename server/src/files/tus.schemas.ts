// What the OpenAPI document says of the tus routes (tus.routes.ts). tus's own headers carry the
// protocol, so the schemas only name the path's upload id and the answers; docs/api.md has the rest.
import { z } from 'zod';
import { BAD_REQUEST, errorResponse, FORBIDDEN, NOT_FOUND } from '../http/responses.js';

const UploadParams = z.object({ id: z.string().describe('The upload id from the Location of its creation') });
const noBody = (description: string) => z.undefined().describe(description);

export const TUS_CREATE_SCHEMA = {
  summary:
    'Create a resumable upload (tus 1.0 creation, creation-with-upload: Tus-Resumable, Upload-Length, Upload-Metadata); ' +
    'checked before any byte is stored. docs/api.md',
  response: {
    201: noBody('Created: Location, Upload-Expires; with every byte sent, also Portal-File-Id (the new file)'),
    400: errorResponse('No Upload-Length, bad Upload-Metadata, no filename or studypetitionid'),
    403: FORBIDDEN,
    404: NOT_FOUND,
    413: errorResponse('Upload-Length over MAX_UPLOAD_BYTES, or past the company’s storage allowance'),
    415: errorResponse('Empty, or first bytes that are not what the name says'),
    422: errorResponse('File name over 255 characters'),
    429: errorResponse('Too many unfinished uploads (UPLOAD_MAX_OPEN_PER_USER)'),
    507: errorResponse('The server is low on storage (MIN_FREE_BYTES), or the disk filled while writing'),
  },
};

export const TUS_UPLOAD_SCHEMA = {
  summary:
    'An upload of yours (tus 1.0): HEAD where it stands, PATCH the next bytes (the last one commits the file and answers ' +
    'Portal-File-Id), DELETE cancels it. docs/api.md',
  params: UploadParams,
  response: {
    200: noBody('HEAD: Upload-Offset and Upload-Length'),
    204: noBody('PATCH: the new Upload-Offset, after the last byte also Portal-File-Id; DELETE: removed'),
    400: BAD_REQUEST,
    403: FORBIDDEN,
    404: errorResponse('Upload not found (another user’s, finished, removed or expired)'),
    408: errorResponse('No byte for UPLOAD_IDLE_TIMEOUT_SECONDS; what arrived is kept'),
    409: errorResponse('Upload-Offset is not where the upload stands'),
    413: errorResponse('More bytes than Upload-Length'),
    415: errorResponse('First bytes that are not what the name says; the upload is removed'),
    423: errorResponse('Another request is working on this upload and did not let go in time'),
    507: errorResponse('The disk filled while writing; the bytes before the chunk are kept'),
  },
};
