import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { createTestDatabase, dialects } from './databases.js';
import { makeUser, PASSWORD } from './factories.js';
import { call, login } from './http.js';
import { startServerProcess } from './processes.js';
import { startTestServer, type TestServer } from './server.js';

describe.each(dialects())('operations on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(() => server.close());

  it('answers liveness and readiness', async () => {
    expect(await call(`${server.api}/health`)).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(await call(`${server.api}/ready`)).toMatchObject({ status: 200, body: { status: 'ready' } });
  });

  it('sends security headers, a request id, and no caching of API answers', async () => {
    const answer = await call(`${server.api}/health`, { headers: { 'x-request-id': 'trace-123' } });
    expect(answer.headers.get('x-request-id')).toBe('trace-123');
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    expect(answer.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(answer.headers.get('strict-transport-security')).toContain('max-age=');
    expect(answer.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const hostile = await call(`${server.api}/health`, { headers: { 'x-request-id': 'a b <script>' } });
    expect(hostile.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('serves its OpenAPI description without a session', async () => {
    const answer = await call(`${server.api}/openapi.json`);
    expect(answer.status).toBe(200);
    expect(answer.body.openapi).toBe('3.0.3');
    expect(Object.keys(answer.body.paths)).toContain('/upload-study-petitions-files');
  });

  it('answers unknown API routes with 404 {message}', async () => {
    const user = await makeUser(server.services);
    const token = await login(server.api, user.username, PASSWORD);
    const answer = await call(`${server.api}/no-such-thing`, { token });
    expect(answer).toMatchObject({ status: 404, body: { message: 'Resource not found' } });
  });

  it('answers an unexpected failure with 500 {message} and no stack trace', async () => {
    const app = await buildApp(server.config, server.services);
    app.get('/api/v1/explode', { config: { public: true } }, () => {
      throw new Error('secret internal detail');
    });
    const answer = await app.inject({ method: 'GET', url: '/api/v1/explode' });
    expect(answer.statusCode).toBe(500);
    expect(answer.json()).toEqual({ message: 'Internal server error' });
    await app.close();
  });
});

describe.each(dialects())('readiness without a database on %s', (dialect) => {
  it('answers 503 when the database is gone', async () => {
    const server = await startTestServer(dialect);
    try {
      await server.services.handle.close();
      const answer = await call(`${server.api}/ready`);
      expect(answer).toMatchObject({ status: 503, body: { message: 'Database unreachable' } });
      expect((await call(`${server.api}/health`)).status).toBe(200);
    } finally {
      await server.app.close();
      await server.database.drop();
    }
  });
});

describe('the server process', () => {
  it('refuses to start on a bad setting, naming the variable', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-cfg-'));
    await expect(startServerProcess({ DATA_DIR: dataDir, PORT: 'eighty' })).rejects.toThrow(/exited with 1[\s\S]*PORT/);
    await expect(startServerProcess({ DATA_DIR: dataDir, DATABASE_URL: 'mysql://x' })).rejects.toThrow(/DATABASE_URL/);
    await expect(startServerProcess({ DATA_DIR: dataDir, MAX_UPLOAD_BYTES: '-5' })).rejects.toThrow(/MAX_UPLOAD_BYTES/);
  });

  it('says how to create the first SysAdmin when the database has no users', async () => {
    const database = await createTestDatabase('sqlite');
    const server = await startServerProcess({ DATA_DIR: database.dataDir });
    server.child.kill('SIGTERM');
    expect(await server.waitForExit()).toBe(0);
    // Plain lines a person can copy, not a string escaped inside a JSON record.
    expect(server.logs()).toMatch(/^No users exist yet\. Create the first SysAdmin/m);
    // With the server's DATA_DIR written out, so the command reaches this database from any folder.
    expect(server.logs()).toContain(`  DATA_DIR=${database.dataDir} npm run admin -- create-company --name "Your Company"`);
    expect(server.logs()).toMatch(/^ {2}DATA_DIR=\S+ npm run admin -- create-user --company-id 1 --username admin .*--role SysAdmin$/m);
    await database.drop();
  });

  it('writes readable log lines for a person when LOG_FORMAT=pretty, still without secrets', async () => {
    const database = await createTestDatabase('sqlite');
    const password = 'Pr3tty!Secret';
    const server = await startServerProcess({ DATA_DIR: database.dataDir, LOG_FORMAT: 'pretty', ADMIN_USERNAME: 'root', ADMIN_PASSWORD: password });
    await login(`${server.url}/api/v1`, 'root', password);
    server.child.kill('SIGTERM');
    expect(await server.waitForExit()).toBe(0);
    const lines = server.logs().split('\n').filter((l) => l.trim() !== '');
    expect(lines.some((l) => l.startsWith('{'))).toBe(false);
    expect(server.logs()).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: Server listening at http:/m);
    expect(server.logs()).toMatch(/INFO: request completed/);
    expect(server.logs()).not.toContain(password);
    await database.drop();
  });

  it('creates the first SysAdmin from ADMIN_USERNAME, logs JSON with request ids, never a secret, and stops on SIGTERM', async () => {
    const database = await createTestDatabase('sqlite');
    const password = 'B00tstrap!Secret';
    const server = await startServerProcess({ DATA_DIR: database.dataDir, ADMIN_USERNAME: 'root', ADMIN_PASSWORD: password });
    const api = `${server.url}/api/v1`;
    const token = await login(api, 'root', password);
    const me = await call(`${api}/me`, { token });
    expect(me.body.data[0]).toMatchObject({ username: 'root', role: 4 });
    await call(`${api}/login`, { json: { username: 'root', password: 'Wr0ng!Guess' } });
    await call(`${api}/password_reset`, { token, json: { userid: 1, old_password: password, new_password: 'N3w!Secret99' } });

    server.child.kill('SIGTERM');
    expect(await server.waitForExit()).toBe(0);
    const logs = server.logs();
    const lines = logs.split('\n').filter((l) => l.startsWith('{'));
    expect(lines.length).toBeGreaterThan(5);
    const requests = lines.map((l) => JSON.parse(l) as { reqId?: string; msg: string }).filter((l) => l.reqId);
    expect(requests.some((l) => l.msg === 'incoming request')).toBe(true);
    for (const secret of [password, token, 'Wr0ng!Guess', 'N3w!Secret99']) expect(logs).not.toContain(secret);
    expect(logs).toContain('shutting down');
    await database.drop();
  });
});
