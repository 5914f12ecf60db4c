// One place turns every failure into `{message}` with its status; stacks go to the log only.
import type { FastifyError, FastifyInstance } from 'fastify';
import { ZodError } from 'zod';
import { AppError } from '../errors/app-error.js';
import { isStorageFull, STORAGE_FULL_MESSAGE } from '../quota/index.js';
import { describeZodError } from './validate.js';

const fastifyCodes: Record<string, { status: number; message: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, message: 'The request body is not valid JSON' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, message: 'The request body is empty' },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, message: 'The request body is too large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, message: 'Unsupported content type' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, message: 'Invalid Content-Length' },
  FST_REQ_FILE_TOO_LARGE: { status: 413, message: 'The file is too large' },
  FST_PARTS_LIMIT: { status: 413, message: 'Too many parts in the upload' },
  FST_FILES_LIMIT: { status: 400, message: 'Send one file per upload' },
  FST_FIELDS_LIMIT: { status: 413, message: 'Too many fields in the upload' },
  FST_INVALID_MULTIPART_CONTENT_TYPE: { status: 415, message: 'The request is not multipart/form-data' },
};

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof AppError) {
      return reply.status(error.status).headers(error.headers).send({ message: error.message });
    }
    if (error instanceof ZodError) {
      return reply.status(400).send({ message: describeZodError(error) });
    }
    const known = error.code ? fastifyCodes[error.code] : undefined;
    if (known) return reply.status(known.status).send({ message: known.message });
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
      return reply.status(error.statusCode).send({ message: 'The request could not be processed' });
    }
    if (isStorageFull(error)) {
      request.log.error({ err: error }, 'the storage is full');
      return reply.status(507).send({ message: STORAGE_FULL_MESSAGE });
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.status(500).send({ message: 'Internal server error' });
  });
}
