import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ping, type Db } from '../db/database.js';
import { errorResponse } from '../http/responses.js';
import { openApiDocument } from '../openapi/openapi.js';
import type { Storage } from '../storage/storage.js';

export function healthRoutes(db: Db, storage: Storage) {
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
          summary: 'Readiness: the database and the file storage (the folder, or the S3 bucket) answer',
          response: {
            200: z.object({ status: z.literal('ready') }).describe('Ready'),
            503: errorResponse('Database unreachable, or file storage unreachable'),
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
        return { status: 'ready' as const };
      },
    );
  };
}
