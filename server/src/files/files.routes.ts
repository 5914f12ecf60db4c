import type { FastifyInstance } from 'fastify';
import { ZFilesQuery, type TFilesQuery } from '@portal/contract';
import { idParam, parseId } from '../http/params.js';
import { parse } from '../http/validate.js';
import { sessionOf } from '../auth/index.js';
import type { Storage } from '../storage/storage.js';
import { contentTypeFor } from './content-type.js';
import { sendDownload } from './download-response.js';
import type { FilesService } from './files.service.js';
import { receiveMultipartUpload, type MultipartUploadOptions } from './multipart-upload.js';

/** The spec's call, unchanged, unless the caller asks to search, filter, sort or page. */
function isFinding(find: TFilesQuery): boolean {
  return Object.values(find).some((value) => value !== undefined);
}

export function filesRoutes(files: FilesService, storage: Storage, uploads: MultipartUploadOptions) {
  return (app: FastifyInstance) => {
    app.get('/study-petitions-files', async (request) => {
      const { study_petition_id: projectId } = request.query as Record<string, unknown>;
      const find = parse(ZFilesQuery, request.query);
      const { actor } = sessionOf(request);
      if (!isFinding(find)) return { data: await files.list(actor, parseId(projectId, 'Project')) };
      return files.find(actor, parseId(projectId, 'Project'), find);
    });

    app.post('/upload-study-petitions-files', async (request, reply) => {
      const { actor } = sessionOf(request);
      const { upload, projectId } = await receiveMultipartUpload(request, files, actor, uploads);
      return reply.status(201).send({ data: [await files.commit(actor, upload, projectId)] });
    });

    app.get('/download-study-petitions-files/:id', async (request, reply) => {
      const row = await files.require(sessionOf(request).actor, idParam(request.params, 'File'), 'download');
      return sendDownload(reply, {
        storage,
        key: row.storage_key,
        facts: { size: Number(row.filesize), sha256: row.sha256, contentType: contentTypeFor(row.file), fileName: row.file },
        conditions: request.headers,
      });
    });

    app.put('/study-petitions-files-delete/:id', async (request) => {
      return { data: [await files.remove(sessionOf(request).actor, idParam(request.params, 'File'))] };
    });
  };
}
