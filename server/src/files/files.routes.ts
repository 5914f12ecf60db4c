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
import type { DeliveriesService } from '../deliveries/deliveries.service.js';
import type { FilesService } from './files.service.js';
import { receiveMultipartUpload, type MultipartUploadOptions } from '../uploads/multipart-upload.js';

const FileParams = z.object({ id: zId('File') });

/** The project first, so that a bad id answers 404 before any finding parameter is judged. */
const FilesQuery = z.object({ study_petition_id: zId('Project'), ...ZFilesQuery.shape });

/** The spec's call, unchanged, unless the caller asks to search, filter, sort or page. */
function isFinding(find: TFilesQuery): boolean {
  return Object.values(find).some((value) => value !== undefined);
}

/** The upload's form, read as a stream by multipart-upload.ts (documented, not parsed by Fastify). */
const UploadForm = z.object({
  studypetitionid: zId('Project').describe('The project, before or after the file (before: a refused project stops the upload before its bytes)'),
  file: z.file().describe('The file (a DICOM file or an archive)'),
});

export function filesRoutes(files: FilesService, storage: Storage, uploads: MultipartUploadOptions, deliveries: DeliveriesService) {
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

    app.post(
      '/upload-study-petitions-files',
      {
        config: { multipartForm: UploadForm },
        schema: {
          summary: 'Upload one file (multipart fields `studypetitionid` and `file`, in either order), streamed to storage',
          response: {
            201: listResponse(ZProjectFile).describe('Stored; processing is queued'),
            400: errorResponse('A missing field, a body that is not a complete form, or the upload was interrupted'),
            403: FORBIDDEN,
            404: NOT_FOUND,
            408: errorResponse('No data arrived for UPLOAD_IDLE_TIMEOUT_SECONDS'),
            413: errorResponse('Over MAX_UPLOAD_BYTES, or past the company’s storage allowance'),
            415: errorResponse('Not an accepted kind, or content that contradicts the extension'),
            422: errorResponse('File name over 255 characters'),
            507: errorResponse('The server is low on storage (MIN_FREE_BYTES), or the disk filled while writing'),
          },
        },
      },
      async (request, reply) => {
        const { actor } = sessionOf(request);
        const { upload, projectId } = await receiveMultipartUpload(request, files, actor, uploads);
        return reply.status(201).send({ data: [await files.commit(actor, upload, projectId)] });
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
        return sendFile(reply, { storage, deliveries }, row, request.headers);
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
