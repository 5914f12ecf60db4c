import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { listResponse, ZDeidentificationPolicy, ZProjectKey, ZUpdateDeidentificationPolicy } from '@portal/contract';
import { z } from 'zod';
import { sessionOf } from '../auth/index.js';
import { zId } from '../http/params.js';
import { BAD_REQUEST, errorResponse, NOT_FOUND } from '../http/responses.js';
import type { DeidentificationService } from './deidentification.service.js';

const ProjectParams = z.object({ id: zId('Project') });

export function deidentificationRoutes(deidentification: DeidentificationService) {
  return (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/study-petitions/:id/deidentification',
      {
        schema: {
          summary: 'The project’s de-identification policy: its profile and options, with the edition of PS3.15 they refer to',
          params: ProjectParams,
          response: { 200: listResponse(ZDeidentificationPolicy).describe('data[0] is the policy'), 404: NOT_FOUND },
        },
      },
      async (request) => ({ data: [await deidentification.policy(sessionOf(request).actor, request.params.id)] }),
    );

    app.put(
      '/study-petitions/:id/deidentification',
      {
        schema: {
          summary: 'Set the project’s de-identification policy (SysAdmin)',
          params: ProjectParams,
          body: ZUpdateDeidentificationPolicy,
          response: {
            200: listResponse(ZDeidentificationPolicy).describe('The policy now in force'),
            400: BAD_REQUEST,
            403: errorResponse('Only a SysAdmin sets a project’s de-identification policy'),
            404: NOT_FOUND,
          },
        },
      },
      async (request) => ({ data: [await deidentification.setPolicy(sessionOf(request).actor, request.params.id, request.body)] }),
    );

    app.get(
      '/study-petitions/:id/deidentification/key',
      {
        schema: {
          summary: 'The project’s de-identification key, for the browsers of its own company’s users (never SysUser or SysAdmin); made at first use, never changed',
          params: ProjectParams,
          response: {
            200: listResponse(ZProjectKey).describe('data[0].key is the key; the answer is not stored by any cache'),
            403: errorResponse('Only the users of the project’s own company receive its key'),
            404: NOT_FOUND,
          },
        },
      },
      async (request, reply) => {
        const key = await deidentification.projectKey(sessionOf(request).actor, request.params.id);
        // Every API answer says no-store already (app.ts); this one must not depend on that.
        reply.header('cache-control', 'no-store');
        return { data: [key] };
      },
    );
  };
}
