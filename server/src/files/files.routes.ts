import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ZFilesList, ZFilesQuery, ZProjectFile, listResponse, type TFilesQuery } from '@portal/contract';
import { z } from 'zod';
import { zId } from '../http/params.js';
import { errorResponse, FORBIDDEN, NOT_FOUND } from '../http/responses.js';
import { sessionOf } from '../auth/index.js';
import type { Storage } from '../storage/storage.js';
import { sendFile } from './download-target.js';
import { DOWNLOAD_RESPONSES } from './download.schemas.js';
import type { FilesService } from './files.service.js';
import type { FolderMembers } from './folder-members.js';

const FileParams = z.object({ id: zId('File') });

/** The project first, so that a bad id answers 404 before any finding parameter is judged. */
const FilesQuery = z.object({ study_petition_id: zId('Project'), ...ZFilesQuery.shape });

/** The spec's call, unchanged, unless the caller asks to search, filter, sort or page. */
function isFinding(find: TFilesQuery): boolean {
  return Object.values(find).some((value) => value !== undefined);
}

export function filesRoutes(files: FilesService, storage: Storage, folders: FolderMembers) {
  return (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/study-petitions-files',
      {
        schema: {
          summary:
            'Files of a project, with processing status and summary. Without q, sort, order, status, page and per_page: every file, newest first, ' +
            'and no `page` (the spec’s call); with any of them: one page, searched, filtered and sorted, with `page: {page, per_page, total}` beside `data`',
          querystring: FilesQuery,
          response: { 200: ZFilesList.describe('Files'), 400: errorResponse('A bad finding parameter, named in the message'), 404: NOT_FOUND },
        },
      },
      async (request) => {
        const { actor } = sessionOf(request);
        const { study_petition_id: projectId, ...find } = request.query;
        if (!isFinding(find)) return { data: await files.list(actor, projectId) };
        return files.find(actor, projectId, find);
      },
    );

    app.get(
      '/download-study-petitions-files/:id',
      {
        schema: {
          summary: 'Download the file as uploaded (single byte ranges, ETag); a delivery (kind folder) as a zip of its files (no Range)',
          params: FileParams,
          response: DOWNLOAD_RESPONSES,
        },
      },
      async (request, reply) => {
        const row = await files.download(sessionOf(request).actor, request.params.id, request.method !== 'HEAD');
        return sendFile(reply, { storage, folders }, row, request.headers);
      },
    );

    app.put(
      '/study-petitions-files-delete/:id',
      {
        schema: {
          summary: 'Soft-delete a file (cancels its processing)',
          params: FileParams,
          response: { 200: listResponse(ZProjectFile).describe('Deleted'), 403: FORBIDDEN, 404: NOT_FOUND },
        },
      },
      async (request) => ({ data: [await files.remove(sessionOf(request).actor, request.params.id)] }),
    );
  };
}
