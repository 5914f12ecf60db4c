import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import http from 'node:http';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './server.js';

const BIG_JS = 'export const rows = ['.concat('"a row of the table",'.repeat(2000), '];');

/** node:http leaves the body as sent (fetch would decode it), so the encoding itself can be checked. */
async function getRaw(url: string, acceptEncoding: string) {
  const req = http.get(url, { headers: { 'accept-encoding': acceptEncoding } });
  const [answer] = (await once(req, 'response')) as [http.IncomingMessage];
  const chunks: Buffer[] = [];
  for await (const chunk of answer) chunks.push(chunk as Buffer);
  return { status: answer.statusCode, headers: answer.headers, body: Buffer.concat(chunks) };
}

describe('serving the web app', () => {
  let server: TestServer;
  let dist: string;
  beforeAll(async () => {
    dist = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-dist-'));
    fs.mkdirSync(path.join(dist, 'assets'));
    fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>Portal</title>');
    fs.writeFileSync(path.join(dist, 'assets', 'app-1.js'), 'console.log(1)');
    fs.writeFileSync(path.join(dist, 'assets', 'big-2.js'), BIG_JS);
    fs.writeFileSync(path.join(dist, 'assets', 'big-2.js.br'), brotliCompressSync(BIG_JS));
    fs.writeFileSync(path.join(dist, 'assets', 'big-2.js.gz'), gzipSync(BIG_JS));
    server = await startTestServer('sqlite', { WEB_DIST_DIR: dist });
  });
  afterAll(async () => {
    await server.close();
    fs.rmSync(dist, { recursive: true, force: true });
  });

  it('answers the app routes with index.html and serves assets, even ones built after start', async () => {
    for (const route of ['/', '/home', '/study/12']) {
      const response = await fetch(`${server.url}${route}`);
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('<title>Portal</title>');
    }
    const asset = await fetch(`${server.url}/assets/app-1.js`);
    expect(asset.headers.get('content-type')).toContain('javascript');
    fs.writeFileSync(path.join(dist, 'assets', 'app-2.js'), 'console.log(2)');
    expect(await (await fetch(`${server.url}/assets/app-2.js`)).text()).toBe('console.log(2)');
  });

  it('answers a missing asset with 404, not with the app', async () => {
    const response = await fetch(`${server.url}/assets/missing.js`);
    expect(response.status).toBe(404);
  });

  it('sends a hashed asset precompressed, as the client accepts, with an immutable cache header', async () => {
    const br = await getRaw(`${server.url}/assets/big-2.js`, 'gzip, deflate, br');
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(br.headers['vary']).toMatch(/accept-encoding/i);
    expect(br.body.length).toBeLessThan(BIG_JS.length / 10);
    expect(br.body).toEqual(brotliCompressSync(BIG_JS));

    const gz = await getRaw(`${server.url}/assets/big-2.js`, 'gzip');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.body).toEqual(gzipSync(BIG_JS));

    const plain = await getRaw(`${server.url}/assets/big-2.js`, 'identity');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toBe(BIG_JS);
  });

  it('asks for index.html to be revalidated, on / and on every app route, and never caches the API', async () => {
    for (const route of ['/', '/index.html', '/home', '/study/12']) {
      const page = await getRaw(`${server.url}${route}`, 'br');
      expect(page.headers['cache-control'], route).toBe('no-cache');
    }
    const api = await getRaw(`${server.url}/api/v1/health`, 'br');
    expect(api.headers['cache-control']).toBe('no-store');
  });
});
