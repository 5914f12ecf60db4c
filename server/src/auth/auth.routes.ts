import type { FastifyInstance } from 'fastify';
import { ZLoginRequest, ZPasswordResetRequest } from '@portal/contract';
import { parse } from '../http/validate.js';
import { sessionOf } from './request-auth.js';
import { presentUser } from '../users/index.js';
import type { AuthService } from './auth.service.js';

export function authRoutes(auth: AuthService) {
  return (app: FastifyInstance) => {
    app.post('/login', { config: { public: true } }, async (request) => {
      const body = parse(ZLoginRequest, request.body);
      return auth.login(body.username, body.password, request.ip);
    });

    app.post('/logout', async (request, reply) => {
      await auth.logout(sessionOf(request).sessionId);
      return reply.status(204).send();
    });

    app.get('/me', async (request) => {
      const session = sessionOf(request);
      const user = await auth.currentUser(session);
      return { data: [presentUser(user)] };
    });

    app.post('/password_reset', async (request) => {
      const body = parse(ZPasswordResetRequest, request.body);
      await auth.changePassword(sessionOf(request), body, request.ip);
      return { data: { message: 'Password changed successfully' } };
    });
  };
}
