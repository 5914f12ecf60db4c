// Builds the Fastify app without listening: main.ts listens, tests listen on port 0.
import fs from 'node:fs';
import path from 'node:path';
import multipart from '@fastify/multipart';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler } from 'fastify-type-provider-zod';
import { adminRoutes } from './admin/admin.routes.js';
import { createUser } from './admin/user-admin.js';
import { ssoPlugin } from './sso/index.js';
import { authRoutes } from './auth/auth.routes.js';
import { companiesRoutes } from './companies/companies.routes.js';
import { projectsRoutes } from './projects/projects.routes.js';
import { deidentificationRoutes } from './deidentification/index.js';
import { reviewRoutes } from './review/index.js';
import { duplicatesRoutes } from './files/duplicates.routes.js';
import { filesRoutes } from './files/files.routes.js';
import { uploadsRoutes } from './uploads/uploads.routes.js';
import { contentsRoutes } from './files/contents.routes.js';
import { tusRoutes } from './tus/tus.routes.js';
import { uploadSettingsRoutes } from './uploads/upload-settings.routes.js';
import { studiesRoutes } from './studies/studies.routes.js';
import { thumbnailsRoutes } from './thumbnails/index.js';
import { dicomwebRoutes, wadoRoutes } from './dicomweb/index.js';
import { deliveriesRoutes } from './deliveries/deliveries.routes.js';
import { stowRoutes } from './dicomweb/stow.routes.js';
import { downloadLinksRoutes } from './files/download-links.routes.js';
import type { Config } from './config/config.js';
import { healthRoutes } from './health/health.routes.js';
import { registerCompression } from './http/compression.js';
import { registerEarlyAnswers } from './http/early-answer.js';
import { registerErrorHandling } from './http/error-handler.js';
import { createLogger, requestId } from './http/logger.js';
import { registerSecurityHeaders } from './http/security-headers.js';
import { validatorCompiler } from './http/validate.js';
import { registerOpenApi } from './openapi/openapi.js';
import { registerAuthentication } from './auth/request-auth.js';
import { metricsRoutes, registerHttpMetrics } from './metrics/index.js';
import { notificationsRoutes } from './notifications/index.js';
import { ApiTokenBearer, tokensRoutes } from './tokens/index.js';
import { twoFactorRoutes } from './two-factor/index.js';
import { viewerDistBeside, viewerRoutes } from './viewer/index.js';
import type { Services } from './services.js';

export const API_PREFIX = '/api/v1';
const IMMUTABLE = 'public, max-age=31536000, immutable';
const HEADERS_TIMEOUT_MS = 30_000;

export async function buildApp(config: Config, services: Services): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: createLogger(config),
    genReqId: requestId,
    bodyLimit: config.jsonBodyLimitBytes,
    trustProxy: config.trustProxy,
    routerOptions: { maxParamLength: 200 },
    return503OnClosing: true,
    // Never a limit on the whole request: a multi-GB upload on a slow link may take hours, and a
    // body that keeps flowing must not be cut. Stalls are caught by idle timeouts instead: a
    // connection silent in both directions is closed (twice the upload idle timeout, so an upload's
    // own, shorter timeout answers first), and uploads answer 408 after their idle timeout
    // (uploads/multipart-upload.ts).
    requestTimeout: 0,
    connectionTimeout: 2 * config.uploadIdleTimeoutMs,
  });
  // Headers arrive in one go from any real client; a slow trickle of them only holds a connection.
  app.server.headersTimeout = HEADERS_TIMEOUT_MS;

  // Closing ends idle keep-alive connections once; a response still in flight at that moment would
  // leave its connection idle afterwards, holding shutdown for the whole keep-alive timeout.
  app.addHook('preClose', (done) => {
    const sweep = setInterval(() => app.server.closeIdleConnections(), 100).unref();
    app.server.once('close', () => clearInterval(sweep));
    done();
  });

  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (request.url.startsWith('/api/')) reply.header('cache-control', 'no-store');
  });

  await registerSecurityHeaders(app);
  await registerCompression(app);
  registerErrorHandling(app);
  registerHttpMetrics(app, services.metrics, API_PREFIX);
  // Routes declare zod schemas: they validate params, query and body, check answers against the
  // contract, and are what the OpenAPI document is generated from (registered before any route).
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  await registerOpenApi(app, API_PREFIX);
  registerEarlyAnswers(app);
  acceptEmptyJsonBodies(app);
  registerAuthentication(app, services.auth, new ApiTokenBearer(services.repos.apiTokens, services.audit, API_PREFIX));
  await app.register(multipart, {
    limits: {
      // One file and one small field per request; the size limit itself is enforced while
      // streaming (storeUpload), this is the parser's backstop.
      fileSize: config.maxUploadBytes + 1,
      files: 1,
      fields: 4,
      parts: 6,
      fieldSize: 1024,
      fieldNameSize: 100,
      headerPairs: 20,
    },
  });

  await app.register(
    async (api) => {
      await api.register(healthRoutes(services.handle.db, services.storage, services.allowance.headroom));
      await api.register(authRoutes(services.auth, services.passwordLinks));
      await api.register(twoFactorRoutes(services.twoFactor.secondStep, services.twoFactor.settings));
      await api.register(companiesRoutes(services.companies));
      await api.register(projectsRoutes(services.projects));
      await api.register(deidentificationRoutes(services.deidentification));
      await api.register(reviewRoutes(services.review));
      await api.register(filesRoutes(services.files, services.storage, services.deliveries));
      await api.register(duplicatesRoutes(services.handle.db, services.projects));
      await api.register(uploadsRoutes(services.uploads, { idleTimeoutMs: config.uploadIdleTimeoutMs }));
      await api.register(deliveriesRoutes(services.deliveries));
      await api.register(stowRoutes(services.stow, { apiPrefix: API_PREFIX }));
      await api.register(contentsRoutes(services.contents, services.storage));
      await api.register(
        tusRoutes(services.tusUploads, { basePath: `${API_PREFIX}/uploads`, idleTimeoutMs: config.uploadIdleTimeoutMs }),
      );
      await api.register(uploadSettingsRoutes({ chunkBytes: config.resumable.chunkBytes }));
      await api.register(studiesRoutes(services.studies));
      await api.register(dicomwebRoutes(services.qido, { apiPrefix: API_PREFIX }));
      await api.register(wadoRoutes(services.wado, { apiPrefix: API_PREFIX }));
      await api.register(thumbnailsRoutes(services.thumbnails.service));
      await api.register(
        downloadLinksRoutes(services.downloadLinks, { storage: services.storage, folders: services.deliveries }, { apiPrefix: API_PREFIX, inPageMaxBytes: config.downloads.inPageMaxBytes }),
      );
      await api.register(adminRoutes(services));
      await api.register(notificationsRoutes(services.notifications.preferences, services.notifications.webhooks));
      await api.register(tokensRoutes(services.apiTokens));
      await api.register(
        ssoPlugin(
          {
            db: services.handle.db,
            users: services.repos.users,
            companies: services.repos.companies,
            settings: services.repos.ssoSettings,
            audit: services.audit,
            auth: services.auth,
            createUser: (input) => createUser(services, input),
            metrics: services.metrics,
          },
          config,
          app.log,
        ),
      );
      await api.register(metricsRoutes(services.metrics, services.auth, config.metrics.token));
    },
    { prefix: API_PREFIX },
  );

  await app.register(viewerRoutes({ distDir: viewerDistBeside(config.webDistDir) }), { prefix: '/viewer' });
  await serveWebApp(app, config.webDistDir);
  return app;
}

/**
 * The soft-delete calls are bodiless PUTs that clients may still label as JSON; an empty body is
 * "no body", not a syntax error. Everything else goes through Fastify's prototype-safe parser.
 */
function acceptEmptyJsonBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString();
    if (text === '') return done(null, undefined);
    void parseJson(request, text, done);
  });
}

/**
 * The built single-page app. Files are looked up on each request (a rebuilt app is served without
 * a restart); any other GET that names no file (/home, /study/1) gets index.html. Assets carry a
 * content hash in their names, so they never change and may be kept for a year; the page that names
 * them must be revalidated. The build writes .br and .gz copies, sent to clients that accept them.
 */
async function serveWebApp(app: FastifyInstance, distDir: string): Promise<void> {
  const hasBuild = fs.existsSync(`${distDir}/index.html`);
  const assetsDir = path.join(distDir, 'assets') + path.sep;
  if (hasBuild) {
    await app.register(fastifyStatic, {
      root: distDir,
      index: 'index.html',
      preCompressed: true,
      setHeaders: (reply, file) => {
        reply.header('cache-control', file.startsWith(assetsDir) ? IMMUTABLE : 'no-cache');
      },
    });
  }
  app.setNotFoundHandler(async (request, reply) => {
    const pathname = request.url.split('?')[0] ?? '';
    const isAppRoute = !pathname.startsWith('/api/') && !/\.[A-Za-z0-9]+$/.test(pathname);
    if (request.method === 'GET' && hasBuild && isAppRoute) {
      return reply.sendFile('index.html');
    }
    return reply.status(404).send({ message: 'Resource not found' });
  });
}
