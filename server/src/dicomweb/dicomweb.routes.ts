// DICOMweb (PS3.18) for a project, under /study-petitions/{id}/dicomweb (issue 34). QIDO-RS here;
// the answers are DICOM JSON, sent as written text with their own media type.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { sessionOf } from '../auth/index.js';
import { zId } from '../http/params.js';
import { errorResponse, NOT_FOUND } from '../http/responses.js';
import { requireDicomJson } from './accept.js';
import { dicomwebBase } from './dicom-json.js';
import type { Level } from './qido-attributes.js';
import type { QidoPath, QidoQuery, QidoService } from './qido.service.js';

export const DICOM_JSON = 'application/dicom+json';

// The parameters every search takes; attribute keys (PatientName=…, 00100010=…) come on top of
// them and are read by qido-query.ts, which refuses what it does not know.
const ZQidoQuery = z.looseObject({
  limit: z.string().optional().describe(`The most results to answer (at most ${1000})`),
  offset: z.string().optional().describe('How many results to skip'),
  includefield: z.union([z.string(), z.array(z.string())]).optional().describe('Attributes to answer besides the defaults, by keyword or tag, or all'),
  fuzzymatching: z.string().optional().describe('Accepted and ignored: matching is never fuzzy'),
});

const ZDicomJson = z.array(z.record(z.string(), z.object({ vr: z.string(), Value: z.array(z.unknown()).optional() })));

const uid = (what: string) => z.string().min(1).max(64).describe(`${what} UID`);

interface Route {
  path: string;
  level: Level;
  what: string;
  params: z.ZodObject;
}

const project = { id: zId('Project') };
const ROUTES: Route[] = [
  { path: '/studies', level: 'study', what: 'The project’s studies', params: z.object(project) },
  { path: '/series', level: 'series', what: 'The project’s series', params: z.object(project) },
  { path: '/instances', level: 'instance', what: 'The project’s instances', params: z.object(project) },
  { path: '/studies/:study/series', level: 'series', what: 'A study’s series', params: z.object({ ...project, study: uid('Study Instance') }) },
  { path: '/studies/:study/instances', level: 'instance', what: 'A study’s instances', params: z.object({ ...project, study: uid('Study Instance') }) },
  {
    path: '/studies/:study/series/:series/instances',
    level: 'instance',
    what: 'A series’ instances',
    params: z.object({ ...project, study: uid('Study Instance'), series: uid('Series Instance') }),
  },
];

export function dicomwebRoutes(qido: QidoService, options: { apiPrefix: string }) {
  return (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    for (const route of ROUTES) {
      app.get(
        `/study-petitions/:id/dicomweb${route.path}`,
        {
          schema: {
            summary:
              `QIDO-RS: ${route.what} among the live DICOM instances of its uploads and deliveries (each SOP Instance UID once), ` +
              'matched by attribute (keyword or tag), as DICOM JSON (application/dicom+json)',
            params: route.params,
            querystring: ZQidoQuery,
            response: {
              200: { description: 'DICOM JSON (PS3.18 F.2); [] when nothing matches', content: { [DICOM_JSON]: { schema: ZDicomJson } } },
              400: errorResponse('A key that cannot be matched, or a value that is not one of its forms, named in the message'),
              404: NOT_FOUND,
              406: errorResponse('Accept names no type this search answers (application/dicom+json)'),
            },
          },
        },
        async (request: FastifyRequest, reply: FastifyReply) => {
          requireDicomJson(request.headers.accept);
          const params = request.params as { id: number } & QidoPath;
          const base = dicomwebBase(request, options.apiPrefix, params.id);
          const answer = await qido.search(sessionOf(request).actor, params.id, route.level, params, request.query as QidoQuery, base);
          return reply.type(DICOM_JSON).send(JSON.stringify(answer));
        },
      );
    }
  };
}
