// The rendered thumbnail of a series (PS3.18 §10.4 'Rendered Resources', thumbnail), under the
// project's DICOMweb path; the image itself, or 404 with why there is none.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { sessionOf } from '../auth/index.js';
import { zId } from '../http/params.js';
import { documentedHeaders, errorResponse, noBody } from '../http/responses.js';
import type { ThumbnailsService } from './thumbnails.service.js';

const zUid = (what: string) => z.string().regex(/^[0-9.]{1,64}$/).describe(`${what} Instance UID`);

export function thumbnailsRoutes(thumbnails: ThumbnailsService) {
  return (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/study-petitions/:id/dicomweb/studies/:study/series/:series/thumbnail',
      {
        schema: {
          summary: "The series' thumbnail (at most 256 px, WebP) drawn from its middle instance after processing; 404 says why there is none",
          params: z.object({ id: zId('Project'), study: zUid('Study'), series: zUid('Series') }),
          response: {
            200: {
              description: 'The image, with its ETag; Cache-Control: private',
              headers: documentedHeaders({ ETag: { description: 'The strong ETag of the image', required: true } }),
              content: { 'image/webp': { schema: z.string().meta({ format: 'binary' }) } },
            },
            304: noBody('Not modified: the ETag sent in If-None-Match is current', { ETag: { description: 'The strong ETag of the image', required: true } }),
            404: errorResponse('No such series in a project of yours, or the reason it has no thumbnail in words'),
          },
        },
        // After the API's own 'no-store' (app.ts): the browser may keep the picture and ask again
        // with If-None-Match; 'private' keeps it out of shared caches.
        onSend: async (_request, reply) => {
          if (reply.statusCode === 200 || reply.statusCode === 304) void reply.header('cache-control', 'private, no-cache');
        },
      },
      async (request, reply) => {
        const header = request.headers['if-none-match'];
        const answer = await thumbnails.get(sessionOf(request).actor, request.params.id, request.params.study, request.params.series, header);
        void reply.header('etag', answer.etag);
        if (answer.status === 304) return reply.code(304).send();
        // The image's bytes as a stream: the reply's typing knows only the JSON answers.
        const bytes: FastifyReply = reply;
        return bytes.type(answer.contentType).send(answer.body);
      },
    );
  };
}
