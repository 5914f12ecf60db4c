// Two-factor sign-in (issue 37 item 3): the second step of a sign-in and the mandatory enrolment
// at sign-in (public: no session exists yet, the challenge names the sign-in), a user's own
// settings under /account/two-factor, and the administrators' reset and company setting.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  listResponse,
  ZCompanyTwoFactor,
  ZEnrolmentConfirmAtLoginRequest,
  ZEnrolmentStartRequest,
  ZLoginResponse,
  ZLoginWithRecoveryCodes,
  ZRecoveryCodes,
  ZSecondStepRequest,
  ZTwoFactorConfirmRequest,
  ZTwoFactorProof,
  ZTwoFactorSetup,
  ZTwoFactorStatus,
  ZUpdateCompanyTwoFactor,
} from '@portal/contract';
import { z } from 'zod';
import { sessionOf } from '../auth/index.js';
import { zId } from '../http/params.js';
import { BAD_REQUEST, errorResponse, FORBIDDEN, noBody, NOT_FOUND, RETRY_AFTER } from '../http/responses.js';
import type { SecondStepService } from './second-step.service.js';
import type { TwoFactorService } from './two-factor.service.js';

const EXPIRED = errorResponse('The challenge is unknown, used or expired (sign in with the password again)');
const WRONG = errorResponse('The code is not right, was used already, or is out of its time window: in words');
const THROTTLED = errorResponse('Too many failed attempts; see Retry-After', RETRY_AFTER);
const PROOF_REFUSED = errorResponse('Two-factor sign-in is not on, or the code or password is not right');

export function twoFactorRoutes(secondStep: SecondStepService, twoFactor: TwoFactorService) {
  return (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.post(
      '/login/second-factor',
      {
        config: { public: true },
        schema: {
          summary: 'Finish a sign-in with a code of the authenticator app or a recovery code: the same answer as POST /login',
          body: ZSecondStepRequest,
          response: { 200: ZLoginResponse.describe('A session token and the user'), 400: BAD_REQUEST, 401: EXPIRED, 422: WRONG, 429: THROTTLED },
        },
      },
      async (request) => secondStep.complete(request.body, request.ip),
    );

    app.post(
      '/login/second-factor/enrolment',
      {
        config: { public: true },
        schema: {
          summary: 'A mandatory enrolment at sign-in: a new secret and its QR code for the challenge of POST /login',
          body: ZEnrolmentStartRequest,
          response: { 200: listResponse(ZTwoFactorSetup).describe('What the authenticator app needs'), 400: BAD_REQUEST, 401: EXPIRED },
        },
      },
      async (request) => ({ data: [await secondStep.startEnrolment(request.body.challenge)] }),
    );

    app.post(
      '/login/second-factor/enrolment/confirm',
      {
        config: { public: true },
        schema: {
          summary: 'Confirm a mandatory enrolment with the app’s first code: signed in, with the recovery codes (shown once)',
          body: ZEnrolmentConfirmAtLoginRequest,
          response: { 200: ZLoginWithRecoveryCodes.describe('A session token, the user and ten recovery codes'), 400: BAD_REQUEST, 401: EXPIRED, 422: WRONG },
        },
      },
      async (request) => secondStep.confirmEnrolment(request.body.challenge, request.body.code),
    );

    app.get(
      '/account/two-factor',
      { schema: { summary: 'Whether two-factor sign-in is on for the signed-in user, and whether their company requires it', response: { 200: listResponse(ZTwoFactorStatus).describe('data[0]') } } },
      async (request) => ({ data: [await twoFactor.status(sessionOf(request))] }),
    );

    app.post(
      '/account/two-factor',
      {
        schema: {
          summary: 'Start setting up two-factor sign-in: a new secret and its QR code, on once confirmed',
          response: {
            200: listResponse(ZTwoFactorSetup).describe('What the authenticator app needs'),
            403: errorResponse('The user signs in through their company’s identity provider'),
            409: errorResponse('Already on'),
          },
        },
      },
      async (request) => ({ data: [await twoFactor.start(sessionOf(request))] }),
    );

    app.post(
      '/account/two-factor/confirm',
      {
        schema: {
          summary: 'Turn two-factor sign-in on with the app’s first code; answers ten recovery codes, shown once',
          body: ZTwoFactorConfirmRequest,
          response: { 200: listResponse(ZRecoveryCodes).describe('The recovery codes'), 400: BAD_REQUEST, 422: WRONG },
        },
      },
      async (request) => ({ data: [await twoFactor.confirm(sessionOf(request), request.body.code)] }),
    );

    app.post(
      '/account/two-factor/disable',
      {
        schema: {
          summary: 'Turn two-factor sign-in off, with a current code or the password',
          body: ZTwoFactorProof,
          response: { 200: listResponse(ZTwoFactorStatus).describe('Off'), 400: BAD_REQUEST, 422: PROOF_REFUSED, 429: THROTTLED },
        },
      },
      async (request) => ({ data: [await twoFactor.disable(sessionOf(request), request.body, request.ip)] }),
    );

    app.post(
      '/account/two-factor/recovery-codes',
      {
        schema: {
          summary: 'Ten new recovery codes (the old ones stop working), with a current code or the password',
          body: ZTwoFactorProof,
          response: { 200: listResponse(ZRecoveryCodes).describe('The new codes, shown once'), 400: BAD_REQUEST, 422: PROOF_REFUSED, 429: THROTTLED },
        },
      },
      async (request) => ({ data: [await twoFactor.regenerate(sessionOf(request), request.body, request.ip)] }),
    );

    app.delete(
      '/admin/users/:id/two-factor',
      {
        schema: {
          summary: 'Reset a user’s second factor (a lost phone): their authenticator and recovery codes are forgotten (CompanyAdmin: their company’s users; SysAdmin: anyone)',
          params: z.object({ id: zId('User') }),
          response: { 204: noBody('Reset'), 403: FORBIDDEN, 404: NOT_FOUND, 422: errorResponse('The user has no second factor to reset') },
        },
      },
      async (request, reply) => {
        await twoFactor.reset(sessionOf(request).actor, request.params.id);
        return reply.status(204).send();
      },
    );

    const CompanyParams = z.object({ id: zId('Company') });
    app.get(
      '/admin/companies/:id/two-factor',
      {
        schema: {
          summary: 'Whether a company requires two-factor sign-in of its password users (CompanyAdmin: their own; SysAdmin: any)',
          params: CompanyParams,
          response: { 200: listResponse(ZCompanyTwoFactor).describe('The setting'), 403: FORBIDDEN, 404: NOT_FOUND },
        },
      },
      async (request) => ({ data: [await twoFactor.companySetting(sessionOf(request).actor, request.params.id)] }),
    );

    app.put(
      '/admin/companies/:id/two-factor',
      {
        schema: {
          summary: 'Require two-factor sign-in of a company’s password users, or not (CompanyAdmin: their own; SysAdmin: any)',
          params: CompanyParams,
          body: ZUpdateCompanyTwoFactor,
          response: { 200: listResponse(ZCompanyTwoFactor).describe('Saved'), 400: BAD_REQUEST, 403: FORBIDDEN, 404: NOT_FOUND },
        },
      },
      async (request) => ({ data: [await twoFactor.setCompanySetting(sessionOf(request).actor, request.params.id, request.body.required)] }),
    );
  };
}
