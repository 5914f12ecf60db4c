import type { FastifyInstance } from 'fastify';
import { ZStudiesQuery } from '@portal/contract';
import { sessionOf } from '../auth/index.js';
import { idParam } from '../http/params.js';
import { parse } from '../http/validate.js';
import type { StudiesService } from './studies.service.js';

export function studiesRoutes(studies: StudiesService) {
  return (app: FastifyInstance) => {
    app.get('/study-petitions/:id/studies', async (request) => {
      const projectId = idParam(request.params, 'Project');
      const query = parse(ZStudiesQuery, request.query);
      return studies.list(sessionOf(request).actor, projectId, query);
    });
  };
}
