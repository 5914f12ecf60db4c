import type { FastifyInstance } from 'fastify';
import { ZEntryKind } from '@portal/contract';
import { z } from 'zod';
import { contentTypeFor } from './content-type.js';
import { sendDownload } from './download-response.js';
import { parseId } from '../http/params.js';
import { sessionOf } from '../auth/index.js';
import { parse } from '../http/validate.js';
import type { Storage } from '../storage/storage.js';
import { MAX_PAGE, type ContentsService } from './contents.service.js';

const ZContentsQuery = z.strictObject({
  offset: z.coerce.number().int().min(0).max(10_000_000).default(0),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE).default(100),
  kind: ZEntryKind.optional(),
});

export function contentsRoutes(contents: ContentsService, storage: Storage) {
  return (app: FastifyInstance) => {
    app.get('/study-petitions-files/:fileId/contents', async (request) => {
      const fileId = parseId((request.params as { fileId?: string }).fileId, 'File');
      const query = parse(ZContentsQuery, request.query);
      return { data: await contents.contents(sessionOf(request).actor, fileId, query) };
    });

    app.get('/study-petitions-files/:fileId/contents/:entryId/download', async (request, reply) => {
      const params = request.params as { fileId?: string; entryId?: string };
      const { row, storageKey, offset } = await contents.entryForDownload(
        sessionOf(request).actor,
        parseId(params.fileId, 'File'),
        parseId(params.entryId, 'Entry'),
      );
      const name = row.path.split('/').pop() ?? 'entry';
      return sendDownload(reply, {
        storage,
        key: storageKey,
        offset,
        facts: { size: Number(row.size), sha256: row.sha256!, contentType: row.kind === 'dicom' ? 'application/dicom' : contentTypeFor(name), fileName: name },
        conditions: request.headers,
      });
    });
  };
}
