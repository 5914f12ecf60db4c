import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { listResponse, ZDuplicate, ZDuplicatesRequest, type TDuplicate } from '@portal/contract';
import { z } from 'zod';
import { companyScope, sessionOf } from '../auth/index.js';
import type { Db } from '../db/database.js';
import { zId } from '../http/params.js';
import { errorResponse, NOT_FOUND } from '../http/responses.js';
import type { ProjectsService, Scope } from '../projects/index.js';

const ProjectParams = z.object({ id: zId('Project') });

/** The oldest live file of the project for each of the hashes it holds (the one a copy would be marked a duplicate of). */
export async function findDuplicates(db: Db, projectId: number, scope: Scope, hashes: readonly string[]): Promise<TDuplicate[]> {
  let query = db
    .selectFrom('project_files')
    .select(['project_files.id', 'project_files.file', 'project_files.sha256'])
    .where('project_files.project_id', '=', projectId)
    .where('project_files.sha256', 'in', [...new Set(hashes)])
    .where('project_files.deleted_at', 'is', null)
    .orderBy('project_files.id');
  if (scope !== 'all') query = query.where('project_files.company_id', '=', scope);
  const found = new Map<string, TDuplicate>();
  for (const row of await query.execute()) if (!found.has(row.sha256)) found.set(row.sha256, { sha256: row.sha256, file_id: row.id, file: row.file });
  return [...found.values()];
}

export function duplicatesRoutes(db: Db, projects: ProjectsService) {
  return (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    app.post(
      '/study-petitions/:id/files/duplicates',
      {
        schema: {
          summary:
            'Which of the given SHA-256 hashes the project already holds in a live file, each with the oldest such file; asked by the web app before sending, so that a repeat can be skipped',
          params: ProjectParams,
          body: ZDuplicatesRequest,
          response: { 200: listResponse(ZDuplicate).describe('The hashes found, each once; those not found are left out'), 400: errorResponse('Not a list of 1 to 1000 hashes'), 404: NOT_FOUND },
        },
      },
      async (request) => {
        const { actor } = sessionOf(request);
        // The project answers 404 to a user of another company, as every project route does.
        const project = await projects.require(actor, request.params.id, 'read');
        return { data: await findDuplicates(db, project.id, companyScope(actor), request.body.sha256) };
      },
    );
  };
}
