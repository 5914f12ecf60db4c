import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ZProjectStudies, ZStudiesQuery } from '@portal/contract';
import { z } from 'zod';
import { sessionOf } from '../auth/index.js';
import { zId } from '../http/params.js';
import { errorResponse, NOT_FOUND } from '../http/responses.js';
import type { StudiesService } from './studies.service.js';

export function studiesRoutes(studies: StudiesService) {
  return (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/study-petitions/:id/studies',
      {
        schema: {
          summary:
            'The project’s studies across its live uploads: each SOP Instance UID counted once, with series, modalities and the uploads holding them; ' +
            'searched (patient name or ID, study description, Study Instance UID), sorted and paged, with the total',
          params: z.object({ id: zId('Project') }),
          querystring: ZStudiesQuery,
          response: { 200: ZProjectStudies.describe('Studies'), 400: errorResponse('A bad or unknown parameter, named in the message'), 404: NOT_FOUND },
        },
      },
      async (request) => studies.list(sessionOf(request).actor, request.params.id, request.query),
    );
  };
}
