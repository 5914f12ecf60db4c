// Resumable uploads across a killed server, and their expiry across a restart, with real server
// processes and the tus client the web app uses (tus-js-client, here in Node).
import { randomBytes } from 'node:crypto';
import * as tus from 'tus-js-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/database.js';
import { passDeadlines } from './clock.js';
import { createTestDatabase, dialects, type TestDatabase } from './databases.js';
import { call, login } from './http.js';
import { startServerProcess, type ServerProcess } from './processes.js';
import { createUpload, headUpload, patchUpload, tusFiles, uploadUrl } from './tus.js';
import { dicomFixture, download, expectNoLeftovers, listFiles, sha256 } from './uploads.js';

const ADMIN = { ADMIN_USERNAME: 'root', ADMIN_PASSWORD: 'Tus!Restart-pw1' };
const MiB = 1024 * 1024;
const CHUNK = MiB;

async function signIn(server: ServerProcess) {
  const api = `${server.url}/api/v1`;
  return { api, token: await login(api, ADMIN.ADMIN_USERNAME, ADMIN.ADMIN_PASSWORD) };
}

async function stop(server: ServerProcess, signal: NodeJS.Signals): Promise<void> {
  server.child.kill(signal);
  await server.waitForExit();
}

async function expectNothingLeft(database: TestDatabase): Promise<void> {
  expect(tusFiles(database.dataDir)).toEqual([]);
  const handle = openDatabase({ databaseUrl: database.databaseUrl, dataDir: database.dataDir });
  try {
    // A finished upload keeps its record, without bytes, until it would have expired.
    expect(await handle.db.selectFrom('tus_uploads').selectAll().where('state', '<>', 'finished').execute()).toEqual([]);
    // Called once the server is stopped: a thumbnail job it left queued will not run.
    await expectNoLeftovers(handle.db, database.dataDir, { stopped: true });
  } finally {
    await handle.close();
  }
}

describe.each(dialects())('resumable uploads and server restarts, on %s', (dialect) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(dialect, { migrated: true });
  });
  afterAll(() => database.drop());
  const env = (extra: Record<string, string> = {}) => ({
    DATA_DIR: database.dataDir,
    DATABASE_URL: database.databaseUrl,
    ...ADMIN,
    ...extra,
  });

  it('resumes after a SIGKILL of the server from where it has the bytes, and commits bytes equal to the source', async () => {
    // A DICOM header followed by 24 MiB that no compression could shorten.
    const source = Buffer.concat([dicomFixture('s01_CT_small.dcm'), randomBytes(24 * MiB)]);
    const first = await startServerProcess(env());
    const { api, token } = await signIn(first);
    const project = (await call(`${api}/study-petitions`, { token, json: { name: 'Resume', valid: true, status: 'Pendant' } })).body.data[0];
    const options = {
      chunkSize: CHUNK,
      headers: { Authorization: `Bearer ${token}` },
      metadata: { filename: 'big.dcm', studypetitionid: String(project.id) },
    };

    // The first attempt: the server dies once 8 MiB are in, and the client gives up (no retries).
    let killed: Promise<void> | undefined;
    const interrupted = new tus.Upload(source, {
      ...options,
      endpoint: `${api}/uploads`,
      retryDelays: null,
      onChunkComplete: (_size, accepted) => {
        if (accepted >= 8 * MiB && !killed) killed = stop(first, 'SIGKILL');
      },
    });
    await new Promise<void>((resolve, reject) => {
      interrupted.options.onError = () => resolve();
      interrupted.options.onSuccess = () => reject(new Error('the upload finished although its server was killed'));
      interrupted.start();
    });
    await killed;
    const path = new URL(interrupted.url!).pathname;

    const second = await startServerProcess(env());
    try {
      const again = await signIn(second);
      // Nothing of the unfinished upload is visible.
      expect((await listFiles(again.api, again.token, project.id)).body.data).toEqual([]);
      let resumedAt = -1;
      let patched = 0;
      let fileId: number | undefined;
      const resumed = new tus.Upload(source, {
        ...options,
        headers: { Authorization: `Bearer ${again.token}` },
        uploadUrl: `${second.url}${path}`,
        retryDelays: null,
        onBeforeRequest: (req) => {
          if (req.getMethod() === 'PATCH') patched += 1;
        },
        onAfterResponse: (req, res) => {
          if (req.getMethod() === 'HEAD') resumedAt = Number(res.getHeader('Upload-Offset'));
          const id = res.getHeader('Portal-File-Id');
          if (id) fileId = Number(id);
        },
      });
      await new Promise<void>((resolve, reject) => {
        resumed.options.onSuccess = () => resolve();
        resumed.options.onError = reject;
        resumed.start();
      });
      // It went on from where the first server had the bytes, not from zero, and sent only the rest.
      expect(resumedAt).toBeGreaterThanOrEqual(8 * MiB);
      expect(patched).toBe(Math.ceil((source.length - resumedAt) / CHUNK));
      expect(fileId).toBeDefined();
      const listed = (await listFiles(again.api, again.token, project.id)).body.data;
      expect(listed).toMatchObject([{ id: fileId, file: 'big.dcm', filesize: source.length, sha256: sha256(source), duplicate_of: null }]);
      expect(sha256((await download(again.api, again.token, fileId!)).bytes)).toBe(sha256(source));
    } finally {
      await stop(second, 'SIGTERM');
    }
    await expectNothingLeft(database);
  });

  it('removes an upload that expired while the server was down, at start', async () => {
    const first = await startServerProcess(env({ UPLOAD_EXPIRY_SECONDS: '2' }));
    const { api, token } = await signIn(first);
    const project = (await call(`${api}/study-petitions`, { token, json: { name: 'Expiry', valid: true, status: 'Pendant' } })).body.data[0];
    const data = dicomFixture('s01_CT_small.dcm');
    const url = uploadUrl(api, await createUpload(api, token, { name: 'slice.dcm', projectId: project.id, size: data.length }));
    expect((await patchUpload(url, token, 0, data.subarray(0, 10_000))).status).toBe(204);
    await stop(first, 'SIGKILL');
    expect(tusFiles(database.dataDir).length).toBe(1);
    await passDeadlines(database, 'tus_uploads', 'expires_at');

    const second = await startServerProcess(env({ UPLOAD_EXPIRY_SECONDS: '2' }));
    try {
      expect(second.logs()).toContain('removed expired and abandoned resumable uploads');
      const again = await signIn(second);
      expect((await headUpload(`${second.url}${new URL(url).pathname}`, again.token)).status).toBe(404);
    } finally {
      await stop(second, 'SIGTERM');
    }
    await expectNothingLeft(database);
  });
});
