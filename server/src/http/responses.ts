// The answers routes declare besides their data: every error is {message} (error-handler.ts), and
// downloads are bytes streamed from storage, never serialised.
import { ZErrorBody } from '@portal/contract';
import { z } from 'zod';

/** An error a route may answer, with what it means to the caller (the document's description). */
export const errorResponse = (description: string) => ZErrorBody.describe(description);

export const NOT_FOUND = errorResponse('Not found, or belongs to another company');
export const BAD_REQUEST = errorResponse('Malformed input: the first problem, naming the field');
export const FORBIDDEN = errorResponse('The role may not do this');

const bytes = (description: string) => ({
  description,
  content: { 'application/octet-stream': { schema: z.string().meta({ format: 'binary' }) } },
});

/** The answers of a download (download-response.ts): the bytes, one range, not modified, no such range. */
export const DOWNLOAD_RESPONSES = {
  200: bytes('The bytes, with ETag, Content-Disposition and Accept-Ranges'),
  206: bytes('One byte range'),
  304: z.undefined().describe('Not modified (If-None-Match)'),
  404: NOT_FOUND,
  416: errorResponse('Range not satisfiable'),
};
