import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './server.js';

describe('serving the web app', () => {
  let server: TestServer;
  let dist: string;
  beforeAll(async () => {
    dist = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-dist-'));
    fs.mkdirSync(path.join(dist, 'assets'));
    fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>Portal</title>');
    fs.writeFileSync(path.join(dist, 'assets', 'app-1.js'), 'console.log(1)');
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
});
