import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ping, type Db } from '../db/database.js';
import { errorResponse } from '../http/responses.js';
import { openApiDocument } from '../openapi/openapi.js';
import type { StorageHeadroom } from '../quota/index.js';
import type { Storage } from '../storage/storage.js';

export function healthRoutes(db: Db, storage: Storage, headroom: StorageHeadroom) {
  return (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/health',
      { config: { public: true }, schema: { summary: 'Liveness', response: { 200: z.object({ status: z.literal('ok') }).describe('Up') } } },
      () => ({ status: 'ok' as const }),
    );

    app.get(
      '/openapi.json',
      {
        config: { public: true },
        schema: { summary: 'This document', response: { 200: z.looseObject({ openapi: z.string() }).describe('OpenAPI 3.0') } },
      },
      () => openApiDocument(fastify),
    );

    app.get(
      '/ready',
      {
        config: { public: true },
        schema: {
          summary: 'Readiness: the database and the file storage (the folder, or the S3 bucket) answer, and free space is above MIN_FREE_BYTES',
          response: {
            200: z.object({ status: z.literal('ready') }).describe('Ready'),
            503: errorResponse('Database unreachable, file storage unreachable, or low on storage (new uploads are refused)'),
          },
        },
      },
      async (request, reply) => {
        try {
          await ping(db);
        } catch (err) {
          request.log.warn({ err }, 'readiness check failed: database unreachable');
          return reply.status(503).send({ message: 'Database unreachable' });
        }
        try {
          await storage.checkAccess();
        } catch (err) {
          // The message says why in words (a missing bucket, refused credentials); it holds no secret.
          request.log.warn({ err }, 'readiness check failed: file storage unreachable');
          return reply.status(503).send({ message: 'File storage unreachable' });
        }
        const shortage = await headroom.shortage();
        if (shortage !== undefined) {
          request.log.warn({ shortage }, 'readiness check failed: low on storage');
          return reply.status(503).send({ message: shortage });
        }
        return { status: 'ready' as const };
      },
    );
  };
}
