// Every /api/v1 route needs a live session unless it is marked `config: { public: true }`.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuthenticatedSession, AuthService } from './auth.service.js';
import { unauthorized } from '../errors/app-error.js';
import { runWithAuditContext } from '../audit/index.js';
import type { OtherBearer } from './other-bearer.js';

declare module 'fastify' {
  interface FastifyRequest {
    session: AuthenticatedSession | null;
  }
  interface FastifyContextConfig {
    public?: boolean;
  }
}

export function registerAuthentication(app: FastifyInstance, auth: AuthService, other?: OtherBearer): void {
  app.decorateRequest('session', null);
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.config.public || !request.url.startsWith('/api/')) return;
    const header = request.headers.authorization ?? '';
    const match = /^Bearer ([^\s]+)$/i.exec(header);
    if (!match?.[1]) throw unauthorized('Authentication required');
    request.session = (await other?.authenticate(match[1], request)) ?? (await auth.authenticate(match[1]));
  });
  // Whatever the handler does from here runs in its audit context: the audit rows it leads to name
  // this user, address and user agent without the request being handed down to the services.
  app.addHook('preHandler', (request, _reply, done) => {
    const session = request.session;
    const actor = session ? { id: session.actor.userId, name: session.username, companyId: session.actor.companyId } : null;
    runWithAuditContext({ actor, ip: request.ip, userAgent: request.headers['user-agent'] ?? null }, done);
  });
}

/** The session of an authenticated route; the onRequest hook guarantees it is there. */
export function sessionOf(request: FastifyRequest): AuthenticatedSession {
  if (!request.session) throw unauthorized('Authentication required');
  return request.session;
}
