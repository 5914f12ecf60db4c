// What the OpenAPI document says a download answers (download-response.ts, folder-zip.ts): the
// bytes with the type of the file's name (a DICOM file application/dicom, a folder's zip
// application/zip, a name that says nothing application/octet-stream), one range, not modified,
// no such range.
import { z } from 'zod';
import { documentedHeaders, errorResponse, NOT_FOUND, noBody, type Headers } from '../http/responses.js';
import { DOWNLOAD_CONTENT_TYPES } from './content-type.js';

const ETAG = { description: 'The strong ETag of the bytes (their SHA-256); a folder’s zip has none' };
const WHOLE: Headers = {
  'Content-Disposition': { description: 'attachment, with the file’s name', required: true },
  'Accept-Ranges': { description: '`bytes`; `none` for a folder’s zip, which is built while it is sent', required: true },
  'Content-Length': { description: 'The size in bytes; a folder’s zip is sent chunked', schema: { type: 'integer' } },
  ETag: ETAG,
};
const PART: Headers = {
  'Content-Range': { description: '`bytes start-end/size`', required: true },
  'Content-Length': { description: 'The size of the range', required: true, schema: { type: 'integer' } },
  'Content-Disposition': { description: 'attachment, with the file’s name', required: true },
  ETag: { ...ETAG, required: true },
};

const bytes = (description: string, headers: Headers) => ({
  description,
  headers: documentedHeaders(headers),
  content: Object.fromEntries(DOWNLOAD_CONTENT_TYPES.map((type) => [type, { schema: z.string().meta({ format: 'binary' }) }])),
});

export const DOWNLOAD_RESPONSES = {
  200: bytes('The bytes, typed by the file’s name', WHOLE),
  206: bytes('One byte range (Range; If-Range with the ETag)', PART),
  304: noBody('Not modified (If-None-Match)', { ETag: { ...ETAG, required: true } }),
  404: NOT_FOUND,
  409: errorResponse('The virus scan found it infected: it is not served (the signature is named in the message)'),
  416: errorResponse('Range not satisfiable', { 'Content-Range': { description: '`bytes */size`', required: true } }),
};
