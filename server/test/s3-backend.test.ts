// The portal on the S3 backend as an operator meets it: start-up refused with the reason in words
// when the bucket cannot be used (and never the secret), readiness that follows the bucket, and
// processing whose local copies are gone afterwards, with nothing stored under DATA_DIR.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from './databases.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from './factories.js';
import { call, login } from './http.js';
import { startServerProcess } from './processes.js';
import { startTestS3, type TestS3 } from './s3.js';
import { startTestServer } from './server.js';
import { dicomFixture, download, makeArchive, sha256, storedFiles, upload, waitProcessed } from './uploads.js';

const SECRET = 'process-secret-that-must-not-leak-42';

describe('start-up with S3 settings', () => {
  let s3: TestS3;
  beforeAll(async () => {
    s3 = await startTestS3();
  });
  afterAll(() => s3.close());

  it('refuses to start when the bucket does not exist, saying so and not showing the secret', async () => {
    const database = await createTestDatabase('sqlite');
    try {
      const env = { ...s3.env('no-such-bucket'), S3_SECRET_ACCESS_KEY: SECRET, DATA_DIR: database.dataDir };
      const failed = startServerProcess(env);
      await expect(failed).rejects.toThrow(/exited with 1[\s\S]*Cannot use the S3 bucket "no-such-bucket" at http:\/\/127\.0\.0\.1:\d+: the bucket "no-such-bucket" does not exist/);
      await expect(failed).rejects.not.toThrow(SECRET);
    } finally {
      await database.drop();
    }
  });

  it('refuses to start when nothing answers at S3_ENDPOINT', async () => {
    const database = await createTestDatabase('sqlite');
    try {
      const env = { ...s3.env('portal'), S3_ENDPOINT: 'http://127.0.0.1:9', S3_SECRET_ACCESS_KEY: SECRET, DATA_DIR: database.dataDir };
      const failed = startServerProcess(env);
      await expect(failed).rejects.toThrow(/nothing accepts connections at that address: check S3_ENDPOINT/);
      await expect(failed).rejects.not.toThrow(SECRET);
    } finally {
      await database.drop();
    }
  });

  it('starts on a bucket it can use, and stores nothing under DATA_DIR/objects', async () => {
    const database = await createTestDatabase('sqlite');
    const bucket = await s3.createBucket();
    // s3rver does not check version 4 signatures, so any secret is accepted, and must stay unseen.
    const server = await startServerProcess({ ...s3.env(bucket), S3_SECRET_ACCESS_KEY: SECRET, DATA_DIR: database.dataDir, LOG_LEVEL: 'debug' });
    try {
      expect(await call(`${server.url}/api/v1/ready`)).toMatchObject({ status: 200, body: { status: 'ready' } });
      expect(server.logs()).toContain('Server listening');
      expect(server.logs()).not.toContain(SECRET);
    } finally {
      server.child.kill('SIGTERM');
      await server.waitForExit();
      await database.drop();
    }
    expect(fs.existsSync(path.join(database.dataDir, 'objects'))).toBe(false);
  });
});

describe('readiness follows the bucket', () => {
  it('answers 503 when the S3 service goes away, while liveness stays up', async () => {
    const own = await startTestS3();
    const bucket = await own.createBucket();
    const server = await startTestServer('sqlite', own.env(bucket));
    try {
      expect(await call(`${server.api}/ready`)).toMatchObject({ status: 200 });
      await own.close();
      expect(await call(`${server.api}/ready`)).toMatchObject({ status: 503, body: { message: 'File storage unreachable' } });
      expect((await call(`${server.api}/health`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe('processing on S3', () => {
  it('reads a zip, a 7z and a tar through local copies removed afterwards; the bucket holds exactly what rows point to', async () => {
    const server = await startTestServer('sqlite', {}, { jobs: true, storage: 's3' });
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 's3-processing-'));
    try {
      const company = await makeCompany(server.services);
      const user = await makeUser(server.services, { company });
      const token = await login(server.api, user.username, PASSWORD);
      const members = { 'a.dcm': dicomFixture('s01_CT_small.dcm'), 'sub/b.dcm': dicomFixture('s03_CT_series5N_2062.dcm') };
      const archives = [
        ['stored.zip', makeArchive(scratch, members, 'bsdtar --format zip --options zip:compression=store -cf out.zip *', 'out.zip')],
        ['set.7z', makeArchive(scratch, members, '7zz a -bso0 -bsp0 out.7z *', 'out.7z')],
        ['set.tar', makeArchive(scratch, members, 'bsdtar -cf out.tar *', 'out.tar')],
      ] as const;
      for (const [name, data] of archives) {
        const project = await makeProject(server.services, company);
        const answer = await upload(server.api, token, { name, data }, project.id);
        expect(answer.status).toBe(201);
        const id: number = answer.body.data[0].id;
        expect((await waitProcessed(server.api, token, project.id, id)).processing.status, name).toBe('ready');
        const contents = (await call(`${server.api}/study-petitions-files/${id}/contents`, { token })).body.data;
        const entry = (contents.entries as { id: number; path: string }[]).find((e) => e.path === 'sub/b.dcm');
        expect(entry, name).toBeDefined();
        const got = await fetch(`${server.api}/study-petitions-files/${id}/contents/${entry!.id}/download`, {
          headers: { authorization: `Bearer ${token}` },
        });
        expect(got.status, name).toBe(200);
        expect(sha256(Buffer.from(await got.arrayBuffer())), name).toBe(sha256(members['sub/b.dcm']));
        const part = await download(server.api, token, id, { range: 'bytes=10-99' });
        expect(part.status).toBe(206);
        expect(part.bytes.equals(data.subarray(10, 100))).toBe(true);
      }
      const db = server.services.handle.db;
      // The series' thumbnails are drawn by a job queued once processing ends: wait for them, as their pictures are objects too.
      const drawing = () => db.selectFrom('jobs').select('id').where('name', '=', 'render-thumbnails').where('status', 'in', ['queued', 'running']).executeTakeFirst();
      for (let i = 0; i < 300 && (await drawing()); i += 1) await new Promise((r) => setTimeout(r, 100));
      expect(await drawing()).toBeUndefined();
      const stored = storedFiles(server.config.dataDir);
      // No local copy left in the work area, no unfinished upload, nothing under DATA_DIR/objects.
      expect(stored.filter((f) => /^(s3-work|\.tmp|objects)\//.test(f))).toEqual([]);
      const uploads = (await db.selectFrom('project_files').select('storage_key').execute()).map((r) => r.storage_key);
      const entries = await db.selectFrom('file_entries').select('storage_key').where('storage_key', 'is not', null).execute();
      const pictures = await db.selectFrom('series_thumbnails').select('storage_key').where('storage_key', 'is not', null).execute();
      expect(pictures.length).toBeGreaterThan(0);
      expect([...new Set([...uploads, ...entries.map((r) => r.storage_key!), ...pictures.map((r) => r.storage_key!)])].sort()).toEqual([...stored].sort());
      // The stored zip's and the tar's members stay ranges of the upload: only the 7z added objects.
      expect(stored.filter((f) => f.startsWith('entries/'))).toHaveLength(2);
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
      await server.close();
    }
  });
});
