import type { FastifyInstance } from 'fastify';
import { ZCreateProject, ZUpdateProject } from '@portal/contract';
import { idParam, parseId } from '../http/params.js';
import { sessionOf } from '../auth/index.js';
import { parse } from '../http/validate.js';
import type { ProjectsService } from './projects.service.js';

export function projectsRoutes(projects: ProjectsService) {
  return (app: FastifyInstance) => {
    app.get('/study-petitions', async (request) => {
      const { company_id: companyId } = request.query as Record<string, unknown>;
      const filter = companyId === undefined ? undefined : parseId(companyId, 'Company');
      return { data: await projects.list(sessionOf(request).actor, filter) };
    });

    app.get('/study-petitions/:id', async (request) => {
      return { data: [await projects.get(sessionOf(request).actor, idParam(request.params, 'Project'))] };
    });

    app.post('/study-petitions', async (request, reply) => {
      const body = parse(ZCreateProject, request.body);
      const project = await projects.create(sessionOf(request).actor, body);
      return reply.status(201).send({ data: [project] });
    });

    app.put('/study-petitions/:id', async (request) => {
      const id = idParam(request.params, 'Project');
      const body = parse(ZUpdateProject, request.body);
      return { data: [await projects.update(sessionOf(request).actor, id, body)] };
    });

    app.put('/study-petitions-delete/:id', async (request) => {
      return { data: [await projects.remove(sessionOf(request).actor, idParam(request.params, 'Project'))] };
    });
  };
}
