// What the web app needs to send an upload as the operator wants it (docs/api.md, 'Upload settings').
// Not below /uploads: that prefix is the tus endpoint's, whose ids are its path segments.
import { listResponse, ZUploadSettings } from '@portal/contract';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';

export interface UploadSettingsRoutesOptions {
  /** Told to the web app: the size of each tus PATCH (UPLOAD_CHUNK_BYTES). */
  chunkBytes: number;
}

export function uploadSettingsRoutes(options: UploadSettingsRoutesOptions) {
  return (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/upload-settings',
      {
        schema: {
          summary: 'What the web app needs to cut a resumable (tus) upload into requests',
          response: { 200: listResponse(ZUploadSettings).describe('The settings') },
        },
      },
      () => Promise.resolve({ data: [{ chunk_bytes: options.chunkBytes }] }),
    );
  };
}
