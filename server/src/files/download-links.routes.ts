// Download links (docs/api.md, 'Download links'): made with a session, used without one.
import { listResponse, ZCreateDownloadLink, ZDownloadLink, ZDownloadSettings } from '@portal/contract';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { sessionOf } from '../auth/index.js';
import { BAD_REQUEST, errorResponse, NOT_FOUND } from '../http/responses.js';
import type { Storage } from '../storage/storage.js';
import type { FolderMembers } from './folder-members.js';
import { LINK_PATH, type DownloadLinksService } from './download-links.service.js';
import { sendEntry, sendFile } from './download-target.js';
import { DOWNLOAD_RESPONSES } from './download.schemas.js';

export interface DownloadLinkRoutesOptions {
  /** The path prefix of the API, so that the URL handed out is the one served. */
  apiPrefix: string;
  /** Told to the web app: files up to this size are read by the page, larger ones go through a link. */
  inPageMaxBytes: number;
}

export function downloadLinksRoutes(
  links: DownloadLinksService,
  from: { storage: Storage; folders: FolderMembers },
  options: DownloadLinkRoutesOptions,
) {
  return (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.post(
      '/download-links',
      {
        schema: {
          summary: 'A short-lived, single-use URL downloading a file (a folder row as a zip) or one entry of it, for the browser’s own download manager',
          body: ZCreateDownloadLink,
          response: {
            201: listResponse(ZDownloadLink).describe('GET the url without an Authorization header before expires_at'),
            400: BAD_REQUEST,
            404: NOT_FOUND,
          },
        },
      },
      async (request, reply) =>
        reply.status(201).send({ data: [await links.create(sessionOf(request).actor, request.body, options.apiPrefix)] }),
    );

    app.get(
      '/download-links/settings',
      {
        schema: {
          summary: 'What the web app needs to choose between reading a download itself and handing it to the browser',
          response: { 200: listResponse(ZDownloadSettings).describe('The settings') },
        },
      },
      () => Promise.resolve({ data: [{ in_page_max_bytes: options.inPageMaxBytes }] }),
    );

    app.get(
      `${LINK_PATH}:ticket`,
      {
        // The link is its own authorisation; a HEAD must not spend it.
        config: { public: true },
        exposeHeadRoute: false,
        schema: {
          summary:
            'Use a download link (no Authorization header): the first GET spends it; the same client may then only resume it ' +
            '(Range from past the first byte with If-Range: the ETag) within DOWNLOAD_LINK_RESUME_HOURS',
          params: z.object({ ticket: z.string().describe('From POST /download-links; never logged') }),
          response: {
            ...DOWNLOAD_RESPONSES,
            404: errorResponse('Not a download link, or its file, entry or creator is gone'),
            410: errorResponse('Expired before it was used, or already used (and this is not its client resuming it)'),
          },
        },
      },
      async (request, reply) => {
        const target = await links.open(request.params.ticket, { headers: request.headers, ip: request.ip });
        if (target.kind === 'entry') return sendEntry(reply, from.storage, target, request.headers);
        return sendFile(reply, from, target.row, request.headers);
      },
    );
  };
}
