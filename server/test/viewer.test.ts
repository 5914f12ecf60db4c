// The OHIF viewer under /viewer/ (issue 34 item 2), served from the real prepared package
// (scripts/viewer-install.ts, run here when missing): its page rewritten for /viewer/ with no inline
// script, the portal's app-config.js (run in a sandbox to see what it hands OHIF), the viewer's own
// Content-Security-Policy there and nowhere else, caching, the preloads of the chunks OHIF loads
// at start, and 404s for files that are not there.
import fs from 'node:fs';
import http from 'node:http';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIfChanged, PORTAL_TARGETS } from '../scripts/build-if-changed.js';
import { STARTUP_CHUNKS, startupFiles } from '../src/viewer/prepare.js';
import { call } from './http.js';
import { startTestServer, type TestServer } from './server.js';

const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..');
const VIEWER_DIST = path.join(REPO_ROOT, 'web', 'viewer-dist');

async function getRaw(url: string, acceptEncoding: string) {
  const request = http.get(url, { headers: { 'accept-encoding': acceptEncoding } });
  const [answer] = (await once(request, 'response')) as [http.IncomingMessage];
  const chunks: Buffer[] = [];
  for await (const chunk of answer) chunks.push(chunk as Buffer);
  return { status: answer.statusCode, headers: answer.headers, body: Buffer.concat(chunks) };
}

interface Sandbox {
  config?: (app: { servicesManager: { services: Record<string, unknown> } }) => Promise<Record<string, unknown>>;
  redirectedTo?: string;
}

/** Runs app-config.js as a browser would, with this storage and address; answers what it left on window. */
function runAppConfig(source: string, { token, search }: { token: string | null; search: string }): Sandbox {
  const local = new Map<string, string>(token ? [['token', token]] : []);
  const session = new Map<string, string>();
  const storage = (map: Map<string, string>) => ({ getItem: (k: string) => map.get(k) ?? null, setItem: (k: string, v: string) => map.set(k, v) });
  const window: Record<string, unknown> & Sandbox = {
    localStorage: storage(local),
    sessionStorage: storage(session),
    history: { replaceState: () => undefined },
  };
  window.location = {
    search,
    pathname: '/viewer/viewer',
    replace: (to: string) => {
      window.redirectedTo = to;
    },
  };
  vm.runInNewContext(source, { window, URLSearchParams, fetch: () => Promise.reject(new Error('no network here')) });
  return window;
}

describe('the viewer under /viewer/', () => {
  let server: TestServer;
  let bare: TestServer;
  let emptyDist: string;
  beforeAll(async () => {
    // The real package, fetched and prepared as `npm run build` does (a no-op when it is there).
    buildIfChanged(REPO_ROOT, PORTAL_TARGETS.filter((t) => t.name === 'viewer'), false, () => undefined);
    expect(fs.existsSync(path.join(VIEWER_DIST, 'index.html')), 'the viewer was installed').toBe(true);
    emptyDist = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-no-viewer-'));
    fs.mkdirSync(path.join(emptyDist, 'dist'));
    [server, bare] = await Promise.all([startTestServer('sqlite'), startTestServer('sqlite', { WEB_DIST_DIR: path.join(emptyDist, 'dist') })]);
  }, 300_000);
  afterAll(async () => {
    await Promise.all([server?.close(), bare?.close()]);
    fs.rmSync(emptyDist, { recursive: true, force: true });
  });

  it("answers OHIF's routes with its page, rewritten for /viewer/ and without inline scripts", async () => {
    for (const route of ['/viewer', '/viewer/', '/viewer/viewer?project=3&StudyInstanceUIDs=1.2.3', '/viewer/viewer/dicomweb']) {
      const answer = await call<string>(`${server.url}${route}`);
      expect(answer.status, route).toBe(200);
      expect(answer.headers.get('content-type'), route).toContain('text/html');
      expect(answer.headers.get('cache-control'), route).toBe('no-cache');
      const html = answer.body;
      expect(html).toContain('<title>OHIF Viewer</title>');
      // The CSP runs no inline script: every script is a file under /viewer/, the public URL first.
      const scripts = [...html.matchAll(/<script([^>]*)>/g)].map((m) => m[1]!);
      expect(scripts.every((attributes) => /\bsrc="\/viewer\//.test(attributes))).toBe(true);
      expect(scripts[0]).toContain('src="/viewer/public-url.js"');
      expect(html).toContain('src="/viewer/app-config.js"');
      // No link left pointing at the portal's own root (/assets/, /manifest.json).
      expect([...html.matchAll(/\b(?:src|href|content)="(\/[^"]*)"/g)].map((m) => m[1]!).filter((p) => !p.startsWith('/viewer/'))).toEqual([]);
    }
    const boot = await call<string>(`${server.url}/viewer/public-url.js`);
    expect(boot.body).toContain("window.PUBLIC_URL = '/viewer/'");
  });

  it("serves OHIF's bundles precompressed, loading their chunks from /viewer/, hashed ones cached for a year", async () => {
    const html = (await call<string>(`${server.url}/viewer/`)).body;
    const bundle = /src="(\/viewer\/app\.bundle\.[0-9a-f]{16}\.js)"/.exec(html)?.[1];
    expect(bundle).toBeDefined();
    const br = await getRaw(`${server.url}${bundle}`, 'gzip, br');
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const plain = await getRaw(`${server.url}${bundle}`, 'identity');
    expect(plain.body.toString('utf8')).toContain('__webpack_require__.p = "/viewer/";');
    expect(plain.body.toString('utf8')).not.toContain('__webpack_require__.p = "/";');
    // A file without a hash in its name is revalidated.
    const css = await getRaw(`${server.url}/viewer/app.bundle.css`, 'identity');
    expect(css.headers['cache-control']).toBe('no-cache');
    expect(css.body.toString('utf8')).toContain('url(/viewer/');
  });

  it("names the chunks OHIF loads at start as preloads in its page, after app.bundle, each a file it serves", async () => {
    const html = (await call<string>(`${server.url}/viewer/viewer?project=3&StudyInstanceUIDs=1.2.3`)).body;
    const preloads = [...html.matchAll(/<link rel="preload" as="(script|style)" href="([^"]+)">/g)].map((m) => ({ as: m[1]!, href: m[2]! }));
    expect(preloads.length).toBeGreaterThanOrEqual(STARTUP_CHUNKS.length);
    for (const id of STARTUP_CHUNKS) expect(preloads.some((p) => p.href.startsWith(`/viewer/${id}.`)), id).toBe(true);
    expect(html.indexOf('<link rel="preload"')).toBeGreaterThan(html.search(/src="\/viewer\/app\.bundle\.[0-9a-f]{16}\.js"/));
    for (const { as, href } of preloads) {
      expect(as, href).toBe(href.endsWith('.css') ? 'style' : 'script');
      const answer = await getRaw(`${server.url}${href}`, 'br');
      expect(answer.status, href).toBe(200);
      // Scripts are hashed (kept a year); the style sheets' names are not, so they are revalidated.
      expect(answer.headers['cache-control'], href).toBe(href.endsWith('.js') ? 'public, max-age=31536000, immutable' : 'no-cache');
    }
  });

  it('refuses to prepare a package that lacks a startup chunk', () => {
    const files = fs.readdirSync(VIEWER_DIST);
    expect(startupFiles(files).length).toBeGreaterThanOrEqual(STARTUP_CHUNKS.length);
    expect(() => startupFiles(files.filter((f) => !f.startsWith(`${STARTUP_CHUNKS[0]}.`)))).toThrow(`startup chunk ${STARTUP_CHUNKS[0]}`);
  });

  it('answers a file that is not there with 404, under /viewer/ and under the portal’s own /assets/', async () => {
    for (const route of ['/viewer/missing.js', '/viewer/assets/missing.png', '/viewer/ort/ort.wasm.min.js', '/viewer/sw.js']) {
      expect((await call(`${server.url}${route}`)).status, route).toBe(404);
    }
    // OHIF's /assets/ live under /viewer/assets/: the portal's /assets/ are not OHIF's.
    expect((await call(`${server.url}/viewer/assets/favicon.ico`)).status).toBe(200);
    expect((await call(`${server.url}/assets/favicon.ico`)).status).toBe(404);
  });

  it("gives the viewer's configuration OHIF's file name, and the session from where the web app keeps it, never from the URL", async () => {
    const answer = await call<string>(`${server.url}/viewer/app-config.js`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toContain('javascript');
    expect(answer.headers.get('cache-control')).toBe('no-cache');

    const signedIn = runAppConfig(answer.body, { token: 'session-token', search: '?project=12&StudyInstanceUIDs=1.2.3' });
    expect(signedIn.redirectedTo).toBeUndefined();
    const authentication: { getAuthorizationHeader?: () => Record<string, string> } = {};
    const services = { userAuthenticationService: { setServiceImplementation: (impl: typeof authentication) => Object.assign(authentication, impl) } };
    const config = await signedIn.config!({ servicesManager: { services } });
    const [source] = config.dataSources as { configuration: Record<string, unknown> & { onConfiguration: (c: unknown) => unknown } }[];
    expect(source!.configuration.qidoRoot).toBe('/api/v1/study-petitions/12/dicomweb');
    expect(source!.configuration.wadoRoot).toBe('/api/v1/study-petitions/12/dicomweb');
    expect(config.routerBasename).toBe('/viewer');
    // OHIF calls onConfiguration before its first request: from then on each carries the session.
    source!.configuration.onConfiguration(source!.configuration);
    expect(authentication.getAuthorizationHeader?.()).toEqual({ Authorization: 'Bearer session-token' });

    // Signed out: to the portal's sign-in page.
    expect(runAppConfig(answer.body, { token: null, search: '?project=12' }).redirectedTo).toBe('/');
    // A project that is not a number reaches no project.
    const odd = await runAppConfig(answer.body, { token: 't', search: '?project=12%2F..%2F13' }).config!({ servicesManager: { services } });
    expect((odd.dataSources as { configuration: { qidoRoot: string } }[])[0]!.configuration.qidoRoot).toBe('/api/v1/study-petitions/0/dicomweb');
  });

  it("adds only what OHIF needs to the Content-Security-Policy, on /viewer/ and nowhere else", async () => {
    const policyOf = async (route: string) => (await call(`${server.url}${route}`)).headers.get('content-security-policy') ?? '';
    const portal = await policyOf('/api/v1/health');
    for (const route of ['/viewer/', '/viewer/viewer?project=1', '/viewer/app-config.js', '/viewer/public-url.js', '/viewer/missing.js']) {
      const policy = await policyOf(route);
      expect(policy, route).toContain("script-src 'self' 'wasm-unsafe-eval'");
      expect(policy, route).toContain("worker-src 'self' blob:");
      // Everything else is the portal's own policy, unchanged.
      const rest = (p: string) => p.split(';').filter((d) => !/^(script-src|worker-src)\b/.test(d));
      expect(rest(policy), route).toEqual(rest(portal));
      expect(policy, route).not.toContain("'unsafe-eval'");
    }
    // The image decoding worker alone may evaluate strings (OpenJPEG's embind bindings): it is
    // found by the install, and served with 'unsafe-eval' under its own, worker-only policy.
    const [worker] = JSON.parse(fs.readFileSync(path.join(VIEWER_DIST, 'decode-workers.json'), 'utf8')) as string[];
    expect(fs.readFileSync(path.join(VIEWER_DIST, worker!), 'utf8')).toContain('decodeTask');
    const workerPolicy = await policyOf(`/viewer/${worker}`);
    expect(workerPolicy).toContain("script-src 'self' 'wasm-unsafe-eval' 'unsafe-eval'");
    expect(await policyOf(`/viewer/${worker}x`)).not.toContain("'unsafe-eval'");
    for (const route of ['/', '/home', '/api/v1/health', '/viewerx', '/assets/x.js']) {
      const policy = await policyOf(route);
      expect(policy, route).toContain("script-src 'self';");
      expect(policy, route).not.toContain('wasm-unsafe-eval');
      expect(policy, route).not.toContain('worker-src');
    }
  });

  it('says the viewer is not installed, as a page, where its files are missing', async () => {
    for (const route of ['/viewer/', '/viewer/viewer?project=1']) {
      const answer = await call<string>(`${bare.url}${route}`);
      expect(answer.status, route).toBe(503);
      expect(answer.body).toContain('The image viewer is not installed on this portal');
    }
    expect((await call(`${bare.url}/viewer/app.bundle.css`)).status).toBe(404);
  });
});
