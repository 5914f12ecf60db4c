import type { FastifyInstance } from 'fastify';
import { idParam } from '../http/params.js';
import { sessionOf } from '../auth/index.js';
import type { CompaniesService } from './companies.service.js';

export function companiesRoutes(companies: CompaniesService) {
  return (app: FastifyInstance) => {
    app.get('/company/:id', async (request) => {
      const id = idParam(request.params, 'Company');
      return { data: [await companies.get(sessionOf(request).actor, id)] };
    });
  };
}
