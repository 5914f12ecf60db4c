import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { listResponse, ZLoginRefusal, ZMessageResponse, ZPasswordForgotRequest, ZPasswordLinkRequest, ZPasswordLinkResponse, ZPasswordSetRequest, ZLoginRequest, ZLoginResponse, ZPasswordResetRequest, ZPasswordResetResponse, ZUser } from '@portal/contract';
import { z } from 'zod';
import { BAD_REQUEST, errorResponse, NOT_FOUND, RETRY_AFTER } from '../http/responses.js';
import { sessionOf } from './request-auth.js';
import { presentUser } from '../users/index.js';
import type { AuthService } from './auth.service.js';
import type { PasswordLinksService } from './password-links.service.js';

const THROTTLED = errorResponse('Too many failed attempts; see Retry-After', RETRY_AFTER);

export function authRoutes(auth: AuthService, passwordLinks: PasswordLinksService) {
  return (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.post(
      '/login',
      {
        config: { public: true },
        schema: {
          summary: 'Sign in',
          body: ZLoginRequest,
          response: {
            200: ZLoginResponse.describe('A session token and the user'),
            400: BAD_REQUEST,
            401: ZLoginRefusal.describe(
              'Invalid username or password (the same answer for unknown users); or, the password being right, a second factor is due: second_factor_required, a challenge for POST /login/second-factor, and enrolment_required when it must be set up first',
            ),
            429: THROTTLED,
          },
        },
      },
      async (request, reply) => {
        const answer = await auth.login(request.body.username, request.body.password, request.ip);
        // A client that knows nothing of a second factor sees a refused sign-in, never a half session.
        if ('second_factor_required' in answer) return reply.status(401).send(answer);
        return answer;
      },
    );

    app.post(
      '/logout',
      { schema: { summary: 'Revoke this session', response: { 204: z.undefined().describe('Signed out') } } },
      async (request, reply) => {
        await auth.logout(sessionOf(request));
        return reply.status(204).send();
      },
    );

    app.get(
      '/me',
      { schema: { summary: 'The signed-in user', response: { 200: listResponse(ZUser).describe('data[0] is the user') } } },
      async (request) => {
        const session = sessionOf(request);
        const user = await auth.currentUser(session);
        return { data: [presentUser(user)] };
      },
    );

    app.post(
      '/password_reset',
      {
        schema: {
          summary: 'Change a password (one’s own; a SysAdmin anyone’s, confirming with their own current password)',
          body: ZPasswordResetRequest,
          response: {
            200: ZPasswordResetResponse.describe('Changed; the user’s other sessions are revoked'),
            400: BAD_REQUEST,
            403: errorResponse('Not allowed to change this user’s password'),
            404: NOT_FOUND,
            422: errorResponse('Wrong current password, a weak new password, or the same password again'),
            429: THROTTLED,
          },
        },
      },
      async (request) => {
        await auth.changePassword(sessionOf(request), request.body, request.ip);
        return { data: { message: 'Password changed successfully' } };
      },
    );

    app.post(
      '/password/set',
      {
        config: { public: true },
        schema: {
          summary: 'Set a new password with the secret of a reset link (single use); signs the user out everywhere',
          body: ZPasswordSetRequest,
          response: {
            200: ZMessageResponse.describe('Changed'),
            400: BAD_REQUEST,
            422: errorResponse('Fields missing, a weak password, or a link used, expired or replaced'),
          },
        },
      },
      async (request) => {
        await passwordLinks.setPassword(request.body);
        return { data: { message: 'Password changed successfully' } };
      },
    );

    app.post(
      '/password/link',
      {
        config: { public: true },
        schema: {
          summary: 'Whose password a reset link sets, while the link works (the page names the account when it opens); changes nothing',
          body: ZPasswordLinkRequest,
          response: {
            200: ZPasswordLinkResponse.describe('The account and when the link expires'),
            400: BAD_REQUEST,
            422: errorResponse('A link used, expired, replaced or unknown'),
          },
        },
      },
      async (request) => ({ data: await passwordLinks.describe(request.body.token) }),
    );

    app.post(
      '/password/forgot',
      {
        config: { public: true },
        schema: {
          summary: 'Tell the user’s administrators that they forgot their password (the same answer for every username)',
          body: ZPasswordForgotRequest,
          response: { 200: ZMessageResponse.describe('The same answer whether or not the account exists'), 400: BAD_REQUEST },
        },
      },
      async (request) => ({ data: { message: await passwordLinks.forgot(request.body.username, request.ip) } }),
    );
  };
}
