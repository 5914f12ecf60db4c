// WADO-RS (PS3.18 §10.4) per project: docs/api.md, 'DICOMweb: WADO-RS'. Instances leave as they
// are stored, in multipart/related answers written while they are sent; metadata is DICOM JSON
// with BulkDataURIs; frames and bulk data are the stored bytes of their values.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { sessionOf } from '../auth/index.js';
import { zId } from '../http/params.js';
import { errorResponse, NOT_FOUND } from '../http/responses.js';
import { frameMediaTypes, negotiateFrames, negotiateOctets, requireDicomJson, requireDicomParts } from './accept.js';
import { dicomwebBase, retrieveUrl } from './dicom-json.js';
import { multipartBody, newBoundary, singleBody, type Part, type PartBytes } from './wado-multipart.js';
import type { Frames, StoredInstance, WadoService, WadoTarget } from './wado-service.js';
import { syntaxOf } from './wado-service.js';

const DICOM_JSON = 'application/dicom+json';
const uid = (what: string) => z.string().regex(/^[0-9.]{1,64}$/, `A ${what} UID`).describe(`${what} UID`);
const project = { id: zId('Project') };
const StudyParams = z.object({ ...project, study: uid('Study Instance') });
const SeriesParams = StudyParams.extend({ series: uid('Series Instance') });
const InstanceParams = SeriesParams.extend({ instance: uid('SOP Instance') });
const FramesParams = InstanceParams.extend({ frames: z.string().regex(/^\d{1,6}(,\d{1,6}){0,999}$/, 'Frame numbers from 1, separated by commas').describe('Frame numbers from 1, separated by commas (1,3,5)') });
const BulkParams = InstanceParams.extend({
  attribute: z
    .string()
    .regex(/^[0-9A-Fa-f]{8}(\.\d{1,6}\.[0-9A-Fa-f]{8}){0,20}$/, 'A bulk data address: a tag, or sequence tag.item index.tag…')
    .describe('The attribute, as the BulkDataURI names it: its tag (7FE00010), or within a sequence item: sequence tag.item index (from 0).tag'),
});

const binary = z.string().meta({ format: 'binary' });
const multipart = (description: string) => ({ description, content: { 'multipart/related': { schema: binary } } });
const FRAME_TYPES = ['application/octet-stream', 'image/jpeg', 'image/jls', 'image/jp2', 'image/jpx', 'image/jphc', 'image/dicom-rle', 'video/mpeg', 'video/mp4'];
const ZDicomJson = z.array(z.record(z.string(), z.object({ vr: z.string(), Value: z.array(z.unknown()).optional(), BulkDataURI: z.string().optional() })));

const ERRORS = {
  404: NOT_FOUND,
  406: errorResponse('Accept names no type or transfer syntax this resource is sent in (instances, frames and bulk data are sent only as stored)'),
};

type Params = { id: number; study: string; series?: string; instance?: string };
const targetOf = (params: Params): WadoTarget => ({ study: params.study, series: params.series, instance: params.instance });

export function wadoRoutes(wado: WadoService, options: { apiPrefix: string }) {
  return (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    const base = (request: FastifyRequest, id: number) => dicomwebBase(request, options.apiPrefix, id);
    const instanceUrl = (root: string, i: StoredInstance) => retrieveUrl(root, { study: i.study, series: i.series, instance: i.sop });
    const found = (request: FastifyRequest) => {
      const params = request.params as Params;
      return wado.instances(sessionOf(request).actor, params.id, targetOf(params));
    };

    /** The frames of one instance as parts (or one frame alone), typed by their stored transfer syntax. */
    const sendFrames = (reply: FastifyReply, accept: string | undefined, instance: StoredInstance, frames: Frames, location: string, bulk = false) => {
      const type = frameMediaTypes(frames.syntax, frames.native)[0]!;
      const typed = `${type}; transfer-syntax=${frames.syntax}`;
      const how = negotiateFrames(accept, frames.syntax, frames.native, frames.frames.length === 1, bulk);
      // A frame's fragments, each read by range when the part before it has gone.
      const open = (runs: readonly { start: number; length: number }[]) => () => {
        async function* bytes() {
          for (const run of runs) if (run.length > 0) yield* await wado.read(instance, run);
        }
        return Promise.resolve(bytes());
      };
      if (how === 'single') return reply.type(typed).send(singleBody(open(frames.frames[0]!)));
      const boundary = newBoundary();
      const parts: Part[] = frames.frames.map((runs) => ({ contentType: typed, open: open(runs) }));
      return reply.type(`multipart/related; type="${type}"; transfer-syntax=${frames.syntax}; boundary=${boundary}`).header('content-location', location).send(multipartBody(boundary, parts));
    };

    const retrieve = async (request: FastifyRequest, reply: FastifyReply) => {
      const instances = await found(request);
      requireDicomParts(request.headers.accept, [...new Set(instances.map(syntaxOf))]);
      const boundary = newBoundary();
      const root = base(request, (request.params as Params).id);
      const parts: Part[] = instances.map((i) => ({
        contentType: `application/dicom; transfer-syntax=${syntaxOf(i)}`,
        location: instanceUrl(root, i),
        size: i.size,
        open: () => wado.read(i),
        readInto: (target) => wado.readInto(i, target),
      }));
      return reply.type(`multipart/related; type="application/dicom"; boundary=${boundary}`).send(multipartBody(boundary, parts));
    };

    const metadata = async (request: FastifyRequest, reply: FastifyReply) => {
      requireDicomJson(request.headers.accept, 'Metadata is sent as');
      const instances = await found(request);
      const root = base(request, (request.params as Params).id);
      const answer = await wado.metadata(instances, (i) => instanceUrl(root, i));
      return reply.type(DICOM_JSON).send(JSON.stringify(answer));
    };

    const levels = [
      { path: '/studies/:study', what: 'a study', params: StudyParams },
      { path: '/studies/:study/series/:series', what: 'a series', params: SeriesParams },
      { path: '/studies/:study/series/:series/instances/:instance', what: 'an instance', params: InstanceParams },
    ];
    for (const level of levels) {
      app.get(
        `/study-petitions/:id/dicomweb${level.path}`,
        {
          schema: {
            summary: `WADO-RS: ${level.what} as its stored DICOM files, unchanged, one part each (multipart/related; type="application/dicom")`,
            params: level.params,
            response: { 200: multipart('The instances, each with its Content-Location; sent while read from storage'), ...ERRORS },
          },
        },
        retrieve,
      );
      app.get(
        `/study-petitions/:id/dicomweb${level.path}/metadata`,
        {
          schema: {
            summary: `WADO-RS: the metadata of ${level.what}’s instances as DICOM JSON, with a BulkDataURI for Pixel Data and each binary value`,
            params: level.params,
            response: { 200: { description: 'DICOM JSON (PS3.18 F.2), one object per instance', content: { [DICOM_JSON]: { schema: ZDicomJson } } }, ...ERRORS },
          },
        },
        metadata,
      );
    }

    const instancePath = '/study-petitions/:id/dicomweb/studies/:study/series/:series/instances/:instance';
    app.get(
      `${instancePath}/frames/:frames`,
      {
        schema: {
          summary: 'WADO-RS: frames of an instance in its stored transfer syntax (native: application/octet-stream; encapsulated: each frame’s fragments, typed by their transfer syntax)',
          params: FramesParams,
          response: {
            200: { description: 'One part per frame, in the order asked; one frame alone when the client asks for its type without multipart', content: Object.fromEntries(['multipart/related', ...FRAME_TYPES].map((t) => [t, { schema: binary }])) },
            ...ERRORS,
          },
        },
      },
      async (request, reply) => {
        const [instance] = await found(request);
        const numbers = request.params.frames.split(',').map(Number);
        const frames = await wado.frames(instance!, numbers);
        return sendFrames(reply, request.headers.accept, instance!, frames, `${instanceUrl(base(request, request.params.id), instance!)}/frames/${request.params.frames}`);
      },
    );
    app.get(
      `${instancePath}/bulkdata/:attribute`,
      {
        schema: {
          summary: 'WADO-RS: a bulk data value a BulkDataURI of the metadata names (Pixel Data as its frames; any other binary value as its stored bytes)',
          params: BulkParams,
          response: {
            200: { description: 'The value, in one part or alone (application/octet-stream); Pixel Data one part per frame', content: Object.fromEntries(['multipart/related', ...FRAME_TYPES].map((t) => [t, { schema: binary }])) },
            ...ERRORS,
          },
        },
      },
      async (request: FastifyRequest, reply: FastifyReply) => {
        const params = request.params as { id: number; attribute: string };
        const [instance] = await found(request);
        const path = params.attribute.split('.');
        const location = `${instanceUrl(base(request, params.id), instance!)}/bulkdata/${params.attribute}`;
        if (path.length === 1 && path[0]!.toUpperCase() === '7FE00010') return sendFrames(reply, request.headers.accept, instance!, await wado.frames(instance!, 'all'), location, true);
        const run = await wado.bulkData(instance!, path);
        const how = negotiateOctets(request.headers.accept);
        const open = async (): Promise<PartBytes> => (run.length > 0 ? wado.read(instance!, run) : []);
        if (how === 'single') return reply.type('application/octet-stream').send(singleBody(open));
        const boundary = newBoundary();
        return reply
          .type(`multipart/related; type="application/octet-stream"; boundary=${boundary}`)
          .header('content-location', location)
          .send(multipartBody(boundary, [{ contentType: 'application/octet-stream', open }]));
      },
    );
  };
}
