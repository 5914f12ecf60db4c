// The review's routes (issue 35, item 4): a project's rules, a decision on a file, the inbox.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { listResponse, ZProjectFile, ZReviewDecision, ZReviewList, ZReviewQuery, ZReviewRules } from '@portal/contract';
import { z } from 'zod';
import { sessionOf } from '../auth/index.js';
import { zId } from '../http/params.js';
import { BAD_REQUEST, errorResponse, NOT_FOUND } from '../http/responses.js';
import type { ReviewService } from './review.service.js';

const ProjectParams = z.object({ id: zId('Project') });
const FileParams = z.object({ fileId: zId('File') });

export function reviewRoutes(review: ReviewService) {
  return (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/study-petitions/:id/rules',
      {
        schema: {
          summary: 'The project’s arrival rules, judged on every upload and delivery when its processing ends (the defaults until set)',
          params: ProjectParams,
          response: { 200: listResponse(ZReviewRules).describe('data[0] is the rules'), 404: NOT_FOUND },
        },
      },
      async (request) => ({ data: [await review.rules(sessionOf(request).actor, request.params.id)] }),
    );

    app.put(
      '/study-petitions/:id/rules',
      {
        schema: {
          summary: 'Set the project’s arrival rules, all of them at once (SysUser, SysAdmin); uploads processed afterwards are judged by them',
          params: ProjectParams,
          body: ZReviewRules,
          response: {
            200: listResponse(ZReviewRules).describe('The rules now in force'),
            400: BAD_REQUEST,
            403: errorResponse('Only a SysUser or SysAdmin sets a project’s rules'),
            404: NOT_FOUND,
          },
        },
      },
      async (request) => ({ data: [await review.setRules(sessionOf(request).actor, request.params.id, request.body)] }),
    );

    app.post(
      '/study-petitions-files/:fileId/review',
      {
        schema: {
          summary: 'Accept or reject an upload or delivery (SysUser, SysAdmin); a rejection names a reason of the list, with free text',
          params: FileParams,
          body: ZReviewDecision,
          response: {
            200: listResponse(ZProjectFile).describe('The file with its review as it now stands'),
            400: BAD_REQUEST,
            403: errorResponse('Only a SysUser or SysAdmin accepts or rejects'),
            404: NOT_FOUND,
            422: errorResponse('Nothing to decide: the file is still processing, failed, or was replaced'),
          },
        },
      },
      async (request) => ({ data: [await review.decide(sessionOf(request).actor, request.params.fileId, request.body)] }),
    );

    app.get(
      '/review',
      {
        schema: {
          summary: 'The reviewers’ inbox across every project (SysUser, SysAdmin): newest first, paged, searched by file, project or company name',
          querystring: ZReviewQuery,
          response: {
            200: ZReviewList.describe('Files to review, with their project, company and the rules’ outcome'),
            400: errorResponse('A bad finding parameter, named in the message'),
            403: errorResponse('Only a SysUser or SysAdmin has the inbox'),
          },
        },
      },
      async (request) => review.inbox(sessionOf(request).actor, request.query),
    );
  };
}
