// /api/v1/tokens: a signed-in user's personal API tokens, and their administrators' view of them.
// A token itself is never let in here (token-scopes.ts lists none of these routes).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { listResponse, ZApiToken, ZApiTokensQuery, ZCreateApiToken, ZCreatedApiToken } from '@portal/contract';
import { z } from 'zod';
import { sessionOf } from '../auth/index.js';
import { zId } from '../http/params.js';
import { BAD_REQUEST, FORBIDDEN, NOT_FOUND } from '../http/responses.js';
import type { ApiTokensService } from './tokens.service.js';

const TokenParams = z.object({ id: zId('API token') });

export function tokensRoutes(tokens: ApiTokensService) {
  return (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/tokens',
      {
        schema: {
          summary: 'Personal API tokens not revoked: one’s own, or (owner=all) a CompanyAdmin’s company’s, a SysAdmin’s everyone’s; never their secrets',
          querystring: ZApiTokensQuery,
          response: { 200: listResponse(ZApiToken).describe('Newest first'), 400: BAD_REQUEST, 403: FORBIDDEN },
        },
      },
      async (request) => ({ data: await tokens.list(sessionOf(request).actor, request.query.owner) }),
    );

    app.post(
      '/tokens',
      {
        schema: {
          summary: 'Create a personal API token (scope read, or upload: read and send); the answer carries its secret, shown this once',
          body: ZCreateApiToken,
          response: {
            201: listResponse(ZCreatedApiToken).describe('Created, with its secret'),
            400: BAD_REQUEST.describe('A missing name, an expiry in the past or more than a year ahead, an unknown scope: in words'),
            404: NOT_FOUND.describe('A listed project the user may not read (or that does not exist)'),
          },
        },
      },
      async (request, reply) => reply.status(201).send({ data: [await tokens.create(sessionOf(request).actor, request.body)] }),
    );

    app.delete(
      '/tokens/:id',
      {
        schema: {
          summary: 'Revoke a token: one’s own, a CompanyAdmin their company’s users’, a SysAdmin anyone’s; it stops working at once',
          params: TokenParams,
          response: { 204: z.undefined().describe('Revoked'), 404: NOT_FOUND },
        },
      },
      async (request, reply) => {
        await tokens.revoke(sessionOf(request).actor, request.params.id);
        return reply.status(204).send();
      },
    );
  };
}
