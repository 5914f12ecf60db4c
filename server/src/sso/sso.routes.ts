// /api/v1/sso/…: the sign-in through a company's identity provider (public: the browser is not
// signed in yet), and /api/v1/admin/companies/{id}/sso: its settings (SysAdmin).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ZLoginResponse, ZSsoCompleteRequest, ZSsoDiscoverRequest, ZSsoDiscoverResponse, ZSsoSettings, ZUpdateSsoSettings, listResponse } from '@portal/contract';
import { z } from 'zod';
import { sessionOf } from '../auth/index.js';
import { zId } from '../http/params.js';
import { BAD_REQUEST, errorResponse, FORBIDDEN, LOCATION, noBody, NOT_FOUND, RETRY_AFTER } from '../http/responses.js';
import type { SsoFlow } from './sso-flow.service.js';
import type { SsoSettingsAdministration } from './sso-settings.service.js';

/** Binds a sign-in to the browser that began it; sent back only to the callback. */
const STATE_COOKIE = 'portal_sso_state';
const COOKIE_PATH = '/api/v1/sso/callback';
const TOO_MANY = errorResponse('Too many requests from this address; see Retry-After', RETRY_AFTER);
const REDIRECT = (where: string) => noBody(`A redirect (Location) to ${where}`, LOCATION);

function stateCookie(request: FastifyRequest, value: string, maxAgeSeconds: number): string {
  const secure = request.protocol === 'https' ? '; Secure' : '';
  return `${STATE_COOKIE}=${value}; Path=${COOKIE_PATH}; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure}`;
}

function cookieValue(request: FastifyRequest, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

const redirect = (reply: FastifyReply, to: string) => reply.status(302).header('location', to).send();

export function ssoRoutes(flow: SsoFlow, settings: SsoSettingsAdministration, publicUrl: string | undefined) {
  const baseUrl = (request: FastifyRequest) => publicUrl ?? `${request.protocol}://${request.host}`;
  return (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.post(
      '/sso/discover',
      {
        config: { public: true },
        schema: {
          summary: 'Which sign-in applies to a username: says more only when the user’s company signs in through its identity provider',
          body: ZSsoDiscoverRequest,
          response: { 200: ZSsoDiscoverResponse.describe('The same shape, and the same answer, for unknown users as for users without single sign-on'), 400: BAD_REQUEST, 429: TOO_MANY },
        },
      },
      async (request) => flow.discover(request.body.username, request.ip),
    );

    app.get(
      '/sso/:companyId/start',
      {
        config: { public: true },
        schema: {
          summary: 'Start signing in through the company’s identity provider (the per-company login link); open it in the browser',
          params: z.object({ companyId: zId('Company') }),
          response: { 302: REDIRECT('the provider, or to the login screen with a reason when single sign-on is not available'), 400: BAD_REQUEST, 429: TOO_MANY },
        },
      },
      async (request, reply) => {
        const landing = await flow.start(request.params.companyId, request.ip, baseUrl(request));
        if (landing.state) reply.header('set-cookie', stateCookie(request, landing.state, 600));
        return redirect(reply, landing.to);
      },
    );

    app.get(
      '/sso/callback',
      {
        config: { public: true },
        schema: {
          summary: 'Where the provider sends the browser back (register it as the client’s redirect URI)',
          querystring: z.object({
            code: z.string().optional(),
            state: z.string().optional(),
            iss: z.string().optional(),
            error: z.string().optional(),
            error_description: z.string().optional(),
          }),
          response: { 302: REDIRECT('the login screen, with a one-time code in the fragment (#sso=…) or a reason (#sso_error=…)') },
        },
      },
      async (request, reply) => {
        const search = new URLSearchParams(request.url.split('?')[1] ?? '');
        const landing = await flow.callback(search, cookieValue(request, STATE_COOKIE));
        reply.header('set-cookie', stateCookie(request, '', 0));
        return redirect(reply, landing.to);
      },
    );

    app.post(
      '/sso/complete',
      {
        config: { public: true },
        schema: {
          summary: 'Trade the one-time code of a provider sign-in for a session (once): the same answer as POST /login',
          body: ZSsoCompleteRequest,
          response: { 200: ZLoginResponse.describe('A session token and the user'), 400: BAD_REQUEST, 401: errorResponse('The code is unknown, used or expired') },
        },
      },
      async (request) => flow.complete(request.body.code),
    );

    const CompanyParams = z.object({ id: zId('Company') });
    app.get(
      '/admin/companies/:id/sso',
      {
        schema: {
          summary: 'A company’s single sign-on settings (SysAdmin); the client secret is never answered',
          params: CompanyParams,
          response: { 200: listResponse(ZSsoSettings).describe('The settings'), 403: FORBIDDEN, 404: NOT_FOUND },
        },
      },
      async (request) => ({ data: [await settings.get(sessionOf(request).actor, request.params.id, baseUrl(request))] }),
    );

    app.put(
      '/admin/companies/:id/sso',
      {
        schema: {
          summary: 'Set a company’s single sign-on (SysAdmin); turning it on checks that the issuer answers its discovery document',
          params: CompanyParams,
          body: ZUpdateSsoSettings,
          response: {
            200: listResponse(ZSsoSettings).describe('Saved'),
            400: BAD_REQUEST,
            403: FORBIDDEN,
            404: NOT_FOUND,
            422: errorResponse('Not valid: the reason, in words (a missing field, an issuer that does not answer)'),
          },
        },
      },
      async (request) => ({ data: [await settings.put(sessionOf(request).actor, request.params.id, request.body, baseUrl(request))] }),
    );
  };
}
