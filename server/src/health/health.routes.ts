import type { FastifyInstance } from 'fastify';
import { ping, type Db } from '../db/database.js';
import { openApiDocument } from '../openapi/openapi.js';

export function healthRoutes(db: Db) {
  return (app: FastifyInstance) => {
    app.get('/health', { config: { public: true } }, () => ({ status: 'ok' }));

    const document = openApiDocument();
    app.get('/openapi.json', { config: { public: true } }, () => document);

    app.get('/ready', { config: { public: true } }, async (request, reply) => {
      try {
        await ping(db);
        return { status: 'ready' };
      } catch (err) {
        request.log.warn({ err }, 'readiness check failed: database unreachable');
        return reply.status(503).send({ message: 'Database unreachable' });
      }
    });
  };
}
