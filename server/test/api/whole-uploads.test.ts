// Small multipart uploads (the whole request at most WHOLE_UPLOAD_MAX_BYTES) are read into memory,
// checked, hashed and described there and written in one call; the job then takes the description
// instead of reading the stored file again. Their answers must be the streamed path's.
import fs from 'node:fs';
import path from 'node:path';
import { ROLES } from '@portal/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyRow } from '../../src/db/schema.js';
import { uploadSubject } from '../../src/files/file-jobs.js';
import { describeStoredFile, resolveLimits } from '../../src/ingest/index.js';
import { dialects } from '../databases.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from '../factories.js';
import { call, login } from '../http.js';
import { startTestServer, type TestServer } from '../server.js';
import { answerOf, dicomFixture, expectNoLeftovers, FIXTURES, openUploadRequest, sha256, storedFiles, upload } from '../uploads.js';
import { testStorageBackend } from '../storage-registry.js';

const LIMIT = 100 * 1024;
const BOUNDARY = 'whole-boundary';
const fieldPart = (projectId: number) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="studypetitionid"\r\n\r\n${projectId}\r\n`;
const filePart = (name: string) =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/dicom\r\n\r\n`;

interface Listed {
  id: number;
  processing: { status: string; summary: { instances: number; entries: number } | null };
}

describe.each(dialects())('small uploads read whole on %s', (dialect) => {
  let server: TestServer;
  let company: CompanyRow;
  let token: string;

  beforeAll(async () => {
    // Below a mebibyte, so that a file over the limit still comes in a request read whole.
    server = await startTestServer(dialect, { MAX_UPLOAD_BYTES: String(LIMIT), UPLOAD_IDLE_TIMEOUT_SECONDS: '2' }, { jobs: true });
    company = await makeCompany(server.services);
    const user = await makeUser(server.services, { company, role: ROLES.User });
    token = await login(server.api, user.username, PASSWORD);
  });
  afterAll(() => server.close());

  async function settled(projectId: number, count: number): Promise<Listed[]> {
    for (;;) {
      const list = await call(`${server.api}/study-petitions-files?study_petition_id=${projectId}`, { token });
      const rows = (list.body as { data: Listed[] }).data;
      if (rows.length === count && rows.every((r) => r.processing.status === 'ready' || r.processing.status === 'failed')) return rows;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('describes each DICOM file on arrival exactly as the job would from the stored file, and indexes it from that', async () => {
    const project = await makeProject(server.services, company);
    const names = fs.readdirSync(path.join(FIXTURES, 'dicom')).filter((name) => name.startsWith('s'));
    const accepted: { id: number; name: string; data: Buffer }[] = [];
    for (const name of names) {
      const data = dicomFixture(name);
      const answer = await upload(server.api, token, { name, data }, project.id);
      // Fixtures without a preamble are not DICOM by their first bytes, and refused as under their
      // name; the few larger than this test server's upload limit are refused for their size.
      if (answer.status !== 201) {
        expect(answer.status).toBe(data.length > server.config.maxUploadBytes ? 413 : 415);
        continue;
      }
      expect(answer.body.data[0].sha256).toBe(sha256(data));
      accepted.push({ id: answer.body.data[0].id, name, data });
    }
    expect(accepted.length).toBeGreaterThanOrEqual(10);
    const rows = await settled(project.id, accepted.length);
    const limits = resolveLimits(server.config.processing.limits);
    for (const { id, name, data } of accepted) {
      const [job] = await server.services.repos.jobs.findBySubject(uploadSubject(id));
      const payload = JSON.parse(job!.payload) as { described?: unknown };
      const file = (await server.services.repos.files.findForProcessing(id))!;
      const local = await server.services.storage.openLocal(file.storage_key);
      try {
        expect(fs.readFileSync(local.path).equals(data), name).toBe(true);
        const fromStored = await describeStoredFile(local.path, limits.maxDicomHeaderBytes);
        expect(fromStored.archive).toBe(false);
        const { archive: _archive, ...expected } = fromStored as Extract<typeof fromStored, { archive: false }>;
        expect(payload.described, name).toEqual(expected);
      } finally {
        await local.release();
      }
      const row = rows.find((r) => r.id === id)!;
      expect(row.processing.status, name).toBe('ready');
      expect(row.processing.summary?.entries, name).toBe(1);
    }
  });

  it('answers 413 for a file over the limit in a small request, keeping nothing', async () => {
    const project = await makeProject(server.services, company);
    const big = Buffer.concat([dicomFixture('s01_CT_small.dcm'), Buffer.alloc(LIMIT)]);
    const answer = await upload(server.api, token, { name: 'big.dcm', data: big }, project.id);
    expect(answer.status).toBe(413);
    expect(answer.body.message).toContain('maximum upload size');
    await expectNoLeftovers(server.services.handle.db, server.config.dataDir);
  });

  it('stops a small upload that sends part of its file and then nothing (408), keeping nothing', async () => {
    const project = await makeProject(server.services, company);
    const data = dicomFixture('s01_CT_small.dcm');
    let pendingWhileStalled = -1;
    let filesWhileStalled: string[] = ['not looked at'];
    const head = fieldPart(project.id) + filePart('stalled.dcm');
    const req = openUploadRequest(server.api, token, BOUNDARY, Buffer.byteLength(head) + data.length + 64);
    const answered = answerOf(req);
    req.write(head);
    req.write(data.subarray(0, 8 * 1024));
    setTimeout(() => {
      void (async () => {
        pendingWhileStalled = (await server.services.handle.db.selectFrom('pending_uploads').selectAll().execute()).length;
        const db = server.services.handle.db;
        // Objects named by a file row or by a series thumbnail row (earlier tests' uploads) are not this one's.
        const keys = new Set([
          ...(await db.selectFrom('project_files').select('storage_key').execute()).map((r) => r.storage_key),
          ...(await db.selectFrom('series_thumbnails').select('storage_key').execute()).map((r) => r.storage_key),
        ]);
        filesWhileStalled = storedFiles(server.config.dataDir).filter((file) => !keys.has(file));
      })();
    }, 700);
    const answer = await answered;
    // In flight (its pending record), its bytes held in memory: nothing of it on disk yet (no temp file).
    expect(pendingWhileStalled).toBe(1);
    if (testStorageBackend() !== 's3') expect(filesWhileStalled).toEqual([]);
    expect(answer.status).toBe(408);
    expect(JSON.parse(answer.body).message).toBe(
      'No data arrived for 2 seconds, so the upload was stopped and nothing was kept; check the connection and upload the file again',
    );
    await new Promise((r) => setTimeout(r, 200));
    await expectNoLeftovers(server.services.handle.db, server.config.dataDir);
  });
});
