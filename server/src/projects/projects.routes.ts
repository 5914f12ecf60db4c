import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { listResponse, ZCreateProject, ZProject, ZProjectCompany, ZProjectsList, ZProjectsQuery, ZUpdateProject } from '@portal/contract';
import { z } from 'zod';
import { zId } from '../http/params.js';
import { BAD_REQUEST, errorResponse, FORBIDDEN, NOT_FOUND } from '../http/responses.js';
import { sessionOf } from '../auth/index.js';
import type { ProjectsService } from './projects.service.js';

const ProjectParams = z.object({ id: zId('Project') });
/** company_id first: a bad one answers 404 'Company not found' as it always did, before the finding parameters. */
const ProjectsQuery = z.object({ company_id: zId('Company').optional(), ...ZProjectsQuery.shape });
const NAME_REFUSED = errorResponse('Name missing or too long');

export function projectsRoutes(projects: ProjectsService) {
  return (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/study-petitions',
      {
        schema: {
          summary:
            'Projects: the own company’s, or all for SysUser/SysAdmin (company_id filters), each with its company’s name, its live uploads, ' +
            'studies and newest upload. Without q, sort, order, page and per_page: every project, newest first, and no `page` (the spec’s call); ' +
            'with any of them: one page, searched and sorted, with `page: {page, per_page, total}` beside `data`',
          querystring: ProjectsQuery,
          response: {
            200: ZProjectsList.describe('Projects'),
            400: errorResponse('A bad finding parameter, named in the message'),
            404: NOT_FOUND,
          },
        },
      },
      async (request) => {
        const { company_id: companyId, ...find } = request.query;
        return projects.list(sessionOf(request).actor, companyId, find);
      },
    );

    app.get(
      '/study-petitions-companies',
      {
        schema: {
          summary: 'The companies the projects list can be filtered by: every company for SysUser/SysAdmin, the own one for anyone else; by name',
          response: { 200: listResponse(ZProjectCompany).describe('Companies') },
        },
      },
      async (request) => ({ data: await projects.companies(sessionOf(request).actor) }),
    );

    app.get(
      '/study-petitions/:id',
      {
        schema: {
          summary: 'A project',
          params: ProjectParams,
          response: { 200: listResponse(ZProject).describe('data[0] is the project'), 404: NOT_FOUND },
        },
      },
      async (request) => ({ data: [await projects.get(sessionOf(request).actor, request.params.id)] }),
    );

    app.post(
      '/study-petitions',
      {
        schema: {
          summary: 'Create a project',
          body: ZCreateProject,
          response: {
            201: listResponse(ZProject).describe('Created'),
            400: BAD_REQUEST,
            403: FORBIDDEN,
            422: NAME_REFUSED,
          },
        },
      },
      async (request, reply) => {
        const project = await projects.create(sessionOf(request).actor, request.body);
        return reply.status(201).send({ data: [project] });
      },
    );

    app.put(
      '/study-petitions/:id',
      {
        schema: {
          summary: 'Rename a project (the client sends the project back; only its name changes)',
          params: ProjectParams,
          body: ZUpdateProject,
          response: {
            200: listResponse(ZProject).describe('Renamed'),
            400: BAD_REQUEST,
            403: FORBIDDEN,
            404: NOT_FOUND,
            422: NAME_REFUSED,
          },
        },
      },
      async (request) => ({ data: [await projects.update(sessionOf(request).actor, request.params.id, request.body)] }),
    );

    app.put(
      '/study-petitions-delete/:id',
      {
        schema: {
          summary: 'Soft-delete a project',
          params: ProjectParams,
          response: { 200: listResponse(ZProject).describe('Deleted'), 403: FORBIDDEN, 404: NOT_FOUND },
        },
      },
      async (request) => ({ data: [await projects.remove(sessionOf(request).actor, request.params.id)] }),
    );
  };
}
