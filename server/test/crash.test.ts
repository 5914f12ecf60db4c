import fs from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/database.js';
import { passDeadlines } from './clock.js';
import { createTestDatabase, dialects, type TestDatabase } from './databases.js';
import { call, login } from './http.js';
import { startServerProcess } from './processes.js';
import { dicomFixture, download, expectNoLeftovers, listFiles, sha256, storedFiles, upload } from './uploads.js';

const ADMIN = { ADMIN_USERNAME: 'root', ADMIN_PASSWORD: 'Cr4sh!Test-pw' };

/** Starts a large upload and resolves once `bytes` have reached the server's disk. */
function startSlowUpload(url: string, token: string, projectId: number, dataDir: string) {
  const boundary = 'crash';
  const target = new URL(`${url}/api/v1/upload-study-petitions-files`);
  const req = request({
    host: target.hostname,
    port: target.port,
    path: target.pathname,
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': String(512 * 1024 * 1024),
    },
  });
  req.on('error', () => undefined);
  req.write(`--${boundary}\r\nContent-Disposition: form-data; name="studypetitionid"\r\n\r\n${projectId}\r\n`);
  req.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="huge.dcm"\r\n\r\n`);
  req.write(dicomFixture('s01_CT_small.dcm'));
  const chunk = Buffer.alloc(1024 * 1024, 7);
  let stopped = false;
  const pump = () => {
    while (!stopped && req.write(chunk));
    if (!stopped) req.once('drain', pump);
  };
  pump();
  return {
    /** Waits until a temporary file of the upload is on disk. */
    async inFlight(): Promise<void> {
      for (let i = 0; i < 200; i += 1) {
        if (storedFiles(dataDir).some((f) => f.startsWith('.tmp/'))) return;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error('the upload never reached the disk');
    },
    stop() {
      stopped = true;
      req.destroy();
    },
  };
}

describe.each(dialects())('a server killed in the middle of an upload, on %s', (dialect) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(dialect, { migrated: true });
  });
  afterAll(() => database.drop());

  it('restarts with no visible row, no orphan bytes, and every earlier file intact', async () => {
    const env = { DATA_DIR: database.dataDir, DATABASE_URL: database.databaseUrl, UPLOAD_LEASE_SECONDS: '1', ...ADMIN };
    const first = await startServerProcess(env);
    const api = `${first.url}/api/v1`;
    const token = await login(api, ADMIN.ADMIN_USERNAME, ADMIN.ADMIN_PASSWORD);
    const project = (await call(`${api}/study-petitions`, { token, json: { name: 'Crash', valid: true, status: 'Pendant' } })).body.data[0];
    const earlier = ['s03_CT_series5N_2062.dcm', 's10_MR_small_implicit.dcm'].map((name) => dicomFixture(name));
    const ids: number[] = [];
    for (const [i, data] of earlier.entries()) {
      ids.push((await upload(api, token, { name: `e${i}.dcm`, data }, project.id)).body.data[0].id);
    }

    const slow = startSlowUpload(first.url, token, project.id, database.dataDir);
    await slow.inFlight();
    first.child.kill('SIGKILL');
    await first.waitForExit();
    slow.stop();
    // The killed process left its traces: the half-written temp file and the pending record.
    expect(storedFiles(database.dataDir).some((f) => f.startsWith('.tmp/'))).toBe(true);
    // Past the lease, so a PostgreSQL node also judges the upload abandoned: its record, and its
    // temp file, which a sweep judges by its age (the migration at start once took longer than the lease).
    await passDeadlines(database, 'pending_uploads', 'lease_until');
    const past = new Date(Date.now() - 60_000);
    for (const temp of storedFiles(database.dataDir).filter((f) => f.startsWith('.tmp/'))) fs.utimesSync(path.join(database.dataDir, 'objects', temp), past, past);

    const second = await startServerProcess(env);
    try {
      const api2 = `${second.url}/api/v1`;
      const token2 = await login(api2, ADMIN.ADMIN_USERNAME, ADMIN.ADMIN_PASSWORD);
      const files = (await listFiles(api2, token2, project.id)).body.data;
      expect(files.map((f: { id: number }) => f.id).sort()).toEqual([...ids].sort());
      for (const [i, id] of ids.entries()) {
        const got = await download(api2, token2, id);
        expect(sha256(got.bytes)).toBe(sha256(earlier[i]!));
      }
      const handle = openDatabase({ databaseUrl: database.databaseUrl, dataDir: database.dataDir });
      try {
        await expectNoLeftovers(handle.db, database.dataDir);
      } finally {
        await handle.close();
      }
    } finally {
      second.child.kill('SIGTERM');
      await second.waitForExit();
    }
  });
});
