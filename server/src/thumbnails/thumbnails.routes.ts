// A series' thumbnail (issue 34, item 3): for the Studies view under the project's studies, and
// as DICOMweb's rendered thumbnail (PS3.18 §10.7.1.3, image/jpeg) under the project's dicomweb.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { sessionOf } from '../auth/index.js';
import { zId } from '../http/params.js';
import { documentedHeaders, errorResponse, noBody, NOT_FOUND, RETRY_AFTER, type Headers } from '../http/responses.js';
import { noneMatchHits, PENDING_WORDS, type SeriesThumbnail, type ThumbnailsService } from './thumbnails.service.js';

const uid = (what: string) => z.string().regex(/^[0-9.]{1,64}$/, `A ${what} UID`).describe(`${what} UID`);
const Params = z.object({ id: zId('Project'), study: uid('Study Instance'), series: uid('Series Instance') });
const ETAG: Headers = { ETag: { description: 'The picture’s SHA-256, quoted: send it back in If-None-Match', required: true } };
const PENDING_AFTER_SECONDS = 5;

const picture = (description: string) => ({
  description,
  headers: documentedHeaders(ETAG),
  content: { 'image/jpeg': { schema: z.string().meta({ format: 'binary' }) } },
});

const RESPONSES = {
  200: picture('The thumbnail, at most 256 pixels on its long side'),
  202: errorResponse('The thumbnail is still being made (the upload is being processed): ask again after Retry-After', RETRY_AFTER),
  304: noBody('The picture has not changed since the ETag sent in If-None-Match', ETAG),
  404: NOT_FOUND,
  409: errorResponse('No thumbnail could be made for this series: the message says why in words'),
};

async function send(thumbnails: ThumbnailsService, found: SeriesThumbnail, ifNoneMatch: string | string[] | undefined, reply: FastifyReply) {
  if (found.status === 'pending') return reply.code(202).header('retry-after', String(PENDING_AFTER_SECONDS)).send({ message: PENDING_WORDS });
  if (found.status === 'failed') return reply.code(409).send({ message: found.reason });
  const etag = `"${found.sha256}"`;
  // Like every API answer, no-store (app.ts): pictures of patients stay out of every cache (shared
  // workstations); the web app keeps them in memory and asks again with the ETag.
  reply.header('etag', etag);
  if (noneMatchHits(ifNoneMatch, etag)) return reply.code(304).send();
  return reply.type(found.mime).header('content-length', String(found.size)).send(await thumbnails.open(found));
}

export function thumbnailsRoutes(thumbnails: ThumbnailsService) {
  return (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    app.get(
      '/study-petitions/:id/studies/:study/series/:series/thumbnail',
      {
        schema: {
          summary: 'A series’ thumbnail, drawn from its middle instance as stored (de-identified where the project removes identity), with its ETag',
          params: Params,
          response: RESPONSES,
        },
      },
      async (request, reply) => {
        const { id, study, series } = request.params;
        return send(thumbnails, await thumbnails.find(sessionOf(request).actor, id, study, series, 'read'), request.headers['if-none-match'], reply);
      },
    );
    app.get(
      '/study-petitions/:id/dicomweb/studies/:study/series/:series/thumbnail',
      {
        schema: {
          summary: 'WADO-RS: the rendered thumbnail of a series (image/jpeg), as the Studies view shows it',
          params: Params,
          response: RESPONSES,
        },
      },
      async (request, reply) => {
        const { id, study, series } = request.params;
        return send(thumbnails, await thumbnails.find(sessionOf(request).actor, id, study, series, 'download'), request.headers['if-none-match'], reply);
      },
    );
  };
}
