// STOW-RS (PS3.18 §10.5) per project: docs/api.md, 'DICOMweb: STOW-RS'.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { sessionOf } from '../auth/index.js';
import { AppError } from '../errors/app-error.js';
import { zId } from '../http/params.js';
import { errorResponse, FORBIDDEN, NOT_FOUND } from '../http/responses.js';
import { dicomwebBase, retrieveUrl } from './dicom-json.js';
import { storeAnswer, storeStatus, type StoredInstance } from './stow-answer.js';
import { MalformedBodyError, readParts, stowBoundary } from './stow-parts.js';
import type { StowService } from './stow.service.js';

const ProjectParams = z.object({ id: zId('Study petition') });
const StudyParams = ProjectParams.extend({ study: z.string().regex(/^[0-9.]{1,64}$/, 'A study instance UID') });

/** The PS3.18 store answer, documented under its own media type (application/dicom+json), not as JSON errors are. */
const ZStoreAnswer = z.record(z.string(), z.unknown());
const answer = (description: string) => ({ description, content: { 'application/dicom+json': { schema: ZStoreAnswer } } });

const MALFORMED = 'The multipart/related body is malformed (a boundary or a part’s headers could not be read); send it again as PS3.18 STOW-RS describes';

export function stowRoutes(stow: StowService, opts: { apiPrefix: string }) {
  return (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    // The body is read here as it arrives; any type reaches the handler, which answers 415 in words.
    app.addContentTypeParser('*', (_request, _payload, done) => done(null));

    const response = {
      200: answer('Every instance stored: ReferencedSOPSequence (0008,1199), RetrieveURL (0008,1190)'),
      202: answer('Some instances stored, others refused: FailedSOPSequence (0008,1198) says why, per part'),
      400: errorResponse('The multipart body is malformed'),
      403: FORBIDDEN,
      404: NOT_FOUND,
      409: answer('No instance stored: FailedSOPSequence (0008,1198) says why, per part'),
      415: errorResponse('Not multipart/related; type="application/dicom"'),
    };

    const handle = async (request: FastifyRequest, reply: FastifyReply, projectId: number, study: string | undefined) => {
      const { actor } = sessionOf(request);
      await stow.authorize(actor, projectId);
      const type = stowBoundary(request.headers['content-type']);
      if ('refused' in type) throw new AppError(415, type.refused);
      const base = dicomwebBase(request, opts.apiPrefix, projectId);
      let result;
      try {
        result = await stow.store(actor, projectId, readParts(request.raw, type.boundary), study);
      } catch (err) {
        if (err instanceof MalformedBodyError) throw new AppError(400, MALFORMED);
        throw err;
      }
      const studies = new Set(result.stored.map((s) => s.studyUid));
      const studyUid = study ?? (studies.size === 1 ? [...studies][0] : undefined);
      const answer = storeAnswer({
        studyUrl: studyUid === undefined ? undefined : retrieveUrl(base, { study: studyUid }),
        stored: result.stored,
        failed: result.failed,
        instanceUrl: (s: StoredInstance) => retrieveUrl(base, { study: s.studyUid, series: s.seriesUid, instance: s.sopInstanceUid }),
      });
      return reply.status(storeStatus(result.stored.length, result.failed.length)).type('application/dicom+json').send(answer);
    };

    app.post(
      '/study-petitions/:id/dicomweb/studies',
      { schema: { summary: 'STOW-RS: store DICOM instances (multipart/related; type="application/dicom") as one folder upload', params: ProjectParams, response } },
      async (request, reply) => handle(request, reply, request.params.id, undefined),
    );
    app.post(
      '/study-petitions/:id/dicomweb/studies/:study',
      { schema: { summary: 'STOW-RS into one study: a part of another study is refused', params: StudyParams, response } },
      async (request, reply) => handle(request, reply, request.params.id, request.params.study),
    );
  };
}
