import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { listResponse, ZCompany } from '@portal/contract';
import { z } from 'zod';
import { zId } from '../http/params.js';
import { NOT_FOUND } from '../http/responses.js';
import { sessionOf } from '../auth/index.js';
import type { CompaniesService } from './companies.service.js';

export function companiesRoutes(companies: CompaniesService) {
  return (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/company/:id',
      {
        schema: {
          summary: 'A company',
          params: z.object({ id: zId('Company') }),
          response: { 200: listResponse(ZCompany).describe('data[0] is the company'), 404: NOT_FOUND },
        },
      },
      async (request) => ({ data: [await companies.get(sessionOf(request).actor, request.params.id)] }),
    );
  };
}
