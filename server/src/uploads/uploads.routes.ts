// POST /upload-study-petitions-files: one file in a multipart form, streamed through the upload
// pipeline (multipart-upload.ts) and committed as a file of its project.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { listResponse, ZProjectFile } from '@portal/contract';
import { z } from 'zod';
import { sessionOf } from '../auth/index.js';
import { zId } from '../http/params.js';
import { errorResponse, FORBIDDEN, NOT_FOUND } from '../http/responses.js';
import { receiveMultipartUpload, type MultipartUploadOptions } from './multipart-upload.js';
import type { UploadsService } from './uploads.service.js';

/** The upload's form, read as a stream by multipart-upload.ts (documented, not parsed by Fastify). */
const UploadForm = z.object({
  studypetitionid: zId('Project').describe('The project, before or after the file (before: a refused project stops the upload before its bytes)'),
  file: z.file().describe('The file (a DICOM file or an archive)'),
  replaces: zId('File').optional().describe('A rejected file of the same project that this upload answers: it becomes replaced (issue 35)'),
});

export function uploadsRoutes(uploads: UploadsService, options: MultipartUploadOptions) {
  return (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

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
            422: errorResponse('File name over 255 characters, or `replaces` names no rejected file of the project'),
            507: errorResponse('The server is low on storage (MIN_FREE_BYTES), or the disk filled while writing'),
          },
        },
      },
      async (request, reply) => {
        const { actor } = sessionOf(request);
        const { upload, projectId, replaces } = await receiveMultipartUpload(request, uploads, actor, options);
        return reply.status(201).send({ data: [await uploads.commit(actor, upload, projectId, replaces)] });
      },
    );
  };
}
