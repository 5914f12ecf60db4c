import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ZEntryKind, ZFileContentsResponse } from '@portal/contract';
import { z } from 'zod';
import { sendEntry } from './download-target.js';
import { DOWNLOAD_RESPONSES } from './download.schemas.js';
import { zId } from '../http/params.js';
import { errorResponse, NOT_FOUND } from '../http/responses.js';
import { sessionOf } from '../auth/index.js';
import type { Storage } from '../storage/storage.js';
import { MAX_PAGE, type ContentsService } from './contents.service.js';

const ZContentsQuery = z.strictObject({
  offset: z.coerce.number().int().min(0).max(10_000_000).default(0),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE).default(100),
  kind: ZEntryKind.optional(),
  // review=1: only the entries the de-identification report flags for a person to look at.
  review: z
    .enum(['0', '1', 'true', 'false'])
    .optional()
    .transform((value) => value === '1' || value === 'true'),
});

export function contentsRoutes(contents: ContentsService, storage: Storage) {
  return (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/study-petitions-files/:fileId/contents',
      {
        schema: {
          summary: 'What processing found: entries (paginated) and the study → series tree',
          params: z.object({ fileId: zId('File') }),
          querystring: ZContentsQuery,
          response: {
            200: ZFileContentsResponse.describe('Contents'),
            400: errorResponse('Bad paging parameters'),
            404: NOT_FOUND,
          },
        },
      },
      async (request) => ({ data: await contents.contents(sessionOf(request).actor, request.params.fileId, request.query) }),
    );

    app.get(
      '/study-petitions-files/:fileId/contents/:entryId/download',
      {
        schema: {
          summary: 'Download one extracted entry',
          params: z.object({ fileId: zId('File'), entryId: zId('Entry') }),
          response: DOWNLOAD_RESPONSES,
        },
      },
      async (request, reply) => {
        const entry = await contents.entryForDownload(sessionOf(request).actor, request.params.fileId, request.params.entryId, request.method !== 'HEAD');
        return sendEntry(reply, storage, entry, request.headers);
      },
    );
  };
}
