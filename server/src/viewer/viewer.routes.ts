// The OHIF viewer under /viewer/: its prepared files (scripts/viewer-install.ts) as static files,
// the portal's app-config.js, index.html for OHIF's own routes (/viewer/viewer?…, /viewer/?…),
// and the viewer's Content-Security-Policy on all of it. Nothing here reads a session: the files
// are the same for everyone, and every study the viewer shows comes through the DICOMweb routes,
// which check the session and the project on each request.
import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply } from 'fastify';
import { APP_CONFIG_JS } from './app-config.js';
import { CSP_HEADER, viewerPolicy } from './content-security.js';
import { DECODE_WORKERS_FILE } from './prepare.js';

const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';
/** OHIF's bundles, WASM codecs and fonts carry a 16-hex-digit content hash in their names. */
const HASHED = /(^|[./])[0-9a-f]{16}\.(js|wasm|woff2)$/;
const HAS_EXTENSION = /\.[A-Za-z0-9]+$/;

export const NOT_INSTALLED_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Viewer not installed</title></head>
<body><h1>The image viewer is not installed on this portal</h1>
<p>Ask the portal's administrator to install it: <code>npm run build</code> on the server, with access to the npm registry.</p></body></html>`;

/** The viewer's files sit beside the web app's (web/dist and web/viewer-dist, or WEB_DIST_DIR's sibling). */
export function viewerDistBeside(webDistDir: string): string {
  return path.join(path.dirname(webDistDir), 'viewer-dist');
}

/** The decoding worker's file names, as the install found them (missing: none, JPEG 2000 then fails). */
function readDecodeWorkers(distDir: string): Set<string> {
  try {
    return new Set(JSON.parse(fs.readFileSync(path.join(distDir, DECODE_WORKERS_FILE), 'utf8')) as string[]);
  } catch {
    return new Set();
  }
}

export interface ViewerOptions {
  /** The prepared OHIF files (web/viewer-dist); may be missing, then the viewer says so. */
  distDir: string;
}

export function viewerRoutes(options: ViewerOptions): FastifyPluginAsync {
  return async (app: FastifyInstance) => {
    const indexFile = path.join(options.distDir, 'index.html');
    const installed = fs.existsSync(indexFile);

    const decodeWorkers = installed ? readDecodeWorkers(options.distDir) : new Set<string>();
    app.addHook('onSend', async (request, reply) => {
      const policy = reply.getHeader(CSP_HEADER);
      const pathname = request.url.split('?')[0] ?? '';
      const file = pathname.slice(pathname.lastIndexOf('/') + 1);
      if (typeof policy === 'string') reply.header(CSP_HEADER, viewerPolicy(policy, decodeWorkers.has(file)));
    });

    const sendIndex = async (reply: FastifyReply) => {
      if (!installed) return reply.status(503).type('text/html; charset=utf-8').header('cache-control', REVALIDATE).send(NOT_INSTALLED_PAGE);
      const html = await fs.promises.readFile(indexFile, 'utf8');
      return reply.type('text/html; charset=utf-8').header('cache-control', REVALIDATE).send(html);
    };

    app.get('/app-config.js', async (_request, reply) =>
      reply.type('text/javascript; charset=utf-8').header('cache-control', REVALIDATE).send(APP_CONFIG_JS),
    );
    app.get('/', async (_request, reply) => sendIndex(reply));

    if (installed) {
      await app.register(fastifyStatic, {
        root: options.distDir,
        prefix: '/',
        index: false,
        decorateReply: false,
        preCompressed: true,
        setHeaders: (reply, file) => {
          // `file` is the .br or .gz copy when one is sent.
          reply.header('cache-control', HASHED.test(path.basename(file).replace(/\.(br|gz)$/, '')) ? IMMUTABLE : REVALIDATE);
        },
      });
    }

    // OHIF's own routes name no file: they get its page. A file that is not there is a 404.
    app.setNotFoundHandler(async (request, reply) => {
      const pathname = request.url.split('?')[0] ?? '';
      if ((request.method === 'GET' || request.method === 'HEAD') && !HAS_EXTENSION.test(pathname)) return sendIndex(reply);
      return reply.status(404).send({ message: 'Resource not found' });
    });
  };
}
