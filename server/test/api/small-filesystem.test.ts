// Issue 31, item 1: DATA_DIR on a small filesystem made by the test (a tmpfs where the machine
// allows mounting one, else a folder read as that small). One company uploads until the server
// refuses; every company can still sign in, download, create projects and delete, and a write
// that meets a full disk answers 507 with words and leaves no half file.
import fs from 'node:fs';
import path from 'node:path';
import { statfs } from 'node:fs/promises';
import { ROLES } from '@portal/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOW_STORAGE_MESSAGE, STORAGE_FULL_MESSAGE, explainStorageFull } from '../../src/quota/index.js';
import { dialects } from '../databases.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from '../factories.js';
import { call, login } from '../http.js';
import { startTestServer, type TestServer } from '../server.js';
import { smallFilesystem, type SmallFilesystem } from '../small-filesystem.js';
import { createUpload, patchUpload, uploadUrl } from '../tus.js';
import { dicomFixture, download, storedFiles, upload } from '../uploads.js';

const CT = dicomFixture('s01_CT_small.dcm');
const MiB = 1024 * 1024;

/** A DICOM file of `size` bytes: a real header, zeros after it. */
const dicomOf = (size: number) => Buffer.concat([CT, Buffer.alloc(size - CT.length)]);

/** A multipart upload sent in chunks without Content-Length, so it announces no size beforehand. */
async function chunkedUpload(api: string, token: string, projectId: number, data: Buffer) {
  const boundary = 'small-fs-boundary';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="studypetitionid"\r\n\r\n${projectId}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.dcm"\r\nContent-Type: application/dicom\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const pieces = [head, ...Array.from({ length: Math.ceil(data.length / MiB) }, (_, i) => data.subarray(i * MiB, (i + 1) * MiB)), tail];
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = pieces.shift();
      if (next) controller.enqueue(new Uint8Array(next));
      else controller.close();
    },
  });
  const response = await fetch(`${api}/upload-study-petitions-files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
    body,
    duplex: 'half',
  });
  return { status: response.status, body: (await response.json()) as { message: string } };
}

const freeSpaceOf = async (small: SmallFilesystem) => (small.freeSpace ? (await small.freeSpace(small.dir)).free : freeUnder(small.dir));

const freeUnder = async (dir: string) => {
  const s = await statfs(dir);
  return s.bavail * s.bsize;
};

describe.each(dialects())('a small filesystem under DATA_DIR on %s', (dialect) => {
  let small: SmallFilesystem;
  let server: TestServer;

  beforeAll(async () => {
    small = smallFilesystem(24 * MiB);
    server = await startTestServer(dialect, { DATA_DIR: small.dir, MIN_FREE_BYTES: String(8 * MiB) }, small.freeSpace ? { freeSpace: small.freeSpace } : {});
  });
  afterAll(async () => {
    await server?.close();
    small?.release();
  });

  it('refuses uploads once free space would fall below MIN_FREE_BYTES, and every company keeps working', async () => {
    const filler = await makeCompany(server.services);
    const fillerToken = await login(server.api, (await makeUser(server.services, { company: filler })).username, PASSWORD);
    const fillerProject = await makeProject(server.services, filler);
    const other = await makeCompany(server.services);
    const otherToken = await login(server.api, (await makeUser(server.services, { company: other, role: ROLES.CompanyAdmin })).username, PASSWORD);
    const otherProject = await makeProject(server.services, other);
    const otherFile = await upload(server.api, otherToken, { name: 'other.dcm', data: CT }, otherProject.id);
    expect(otherFile.status).toBe(201);

    const statuses: number[] = [];
    for (let i = 0; i < 12 && !statuses.includes(507); i += 1) {
      const answer = await upload(server.api, fillerToken, { name: `fill${i}.dcm`, data: dicomOf(3 * MiB) }, fillerProject.id);
      statuses.push(answer.status);
      if (answer.status === 507) expect(answer.body.message).toBe(LOW_STORAGE_MESSAGE);
    }
    expect(statuses.filter((s) => s === 201).length).toBeGreaterThanOrEqual(2);
    expect(statuses.at(-1)).toBe(507);
    if (small.real) expect(await freeUnder(small.dir)).toBeGreaterThan(4 * MiB);

    // Everyone else: sign-in, lists, downloads, a new project, a delete; the readiness check says why.
    const again = await login(server.api, (await makeUser(server.services, { company: other })).username, PASSWORD);
    expect((await call(`${server.api}/study-petitions`, { token: again })).status).toBe(200);
    expect((await download(server.api, again, otherFile.body.data[0].id)).bytes.equals(CT)).toBe(true);
    expect((await call(`${server.api}/study-petitions`, { token: otherToken, json: { name: 'After the disk filled' } })).status).toBe(201);
    expect((await call(`${server.api}/study-petitions-files-delete/${otherFile.body.data[0].id}`, { method: 'PUT', token: otherToken })).status).toBe(200);
    // Refused before its bytes would pass the headroom, so the server is still ready; below it, it is not.
    expect((await call(`${server.api}/ready`)).status).toBe(200);
    const padding = path.join(small.dir, 'padding');
    fs.writeFileSync(padding, Buffer.alloc(Math.max(0, (await freeSpaceOf(small)) - 4 * MiB)));
    try {
      const ready = await call(`${server.api}/ready`);
      expect(ready.status).toBe(503);
      expect(ready.body.message).toMatch(/^Low on storage: .* free where the portal keeps its data, below MIN_FREE_BYTES \(8\.00 MB\)/);
    } finally {
      fs.rmSync(padding);
    }
  });
});

describe.each(dialects())('a disk that fills up during a write on %s', (dialect) => {
  let small: SmallFilesystem;
  let server: TestServer;
  let token: string;
  let projectId: number;

  beforeAll(async () => {
    small = smallFilesystem(12 * MiB);
    // No headroom: the writes themselves meet the full disk.
    server = await startTestServer(dialect, { DATA_DIR: small.dir, MIN_FREE_BYTES: '0' }, small.freeSpace ? { freeSpace: small.freeSpace } : {});
    const company = await makeCompany(server.services);
    token = await login(server.api, (await makeUser(server.services, { company })).username, PASSWORD);
    projectId = (await makeProject(server.services, company)).id;
  });
  afterAll(async () => {
    await server?.close();
    small?.release();
  });

  it('answers 507 with words for a multipart upload that meets a full disk, and keeps no half file', async (ctx) => {
    if (!small.real) {
      // No filesystem to fill here: a real ENOSPC (writing to /dev/full) is what the answer is made from.
      const written = await fs.promises.writeFile('/dev/full', 'x').catch((err: unknown) => err);
      expect(explainStorageFull(written)).toMatchObject({ status: 507, message: STORAGE_FULL_MESSAGE });
      await ctx.annotate('tmpfs could not be mounted: the full-disk write was checked with /dev/full');
      return;
    }
    const answer = await chunkedUpload(server.api, token, projectId, dicomOf(16 * MiB));
    expect(answer).toEqual({ status: 507, body: { message: STORAGE_FULL_MESSAGE } });
    expect(storedFiles(server.config.dataDir)).toEqual([]);
    expect(await server.services.handle.db.selectFrom('pending_uploads').selectAll().execute()).toEqual([]);
    expect(await freeUnder(small.dir)).toBeGreaterThan(8 * MiB);
    // And the disk works again for an upload that fits.
    expect((await upload(server.api, token, { name: 'fits.dcm', data: CT }, projectId)).status).toBe(201);
  });

  it('refuses up front an upload whose announced size does not fit on the disk', async () => {
    const answer = await createUpload(server.api, token, { name: 'big.dcm', projectId, size: 64 * MiB });
    expect(answer).toMatchObject({ status: 507, body: { message: LOW_STORAGE_MESSAGE } });
  });

  it('answers 507 with words for a tus chunk that meets a full disk, keeping the bytes before it', async () => {
    const created = await createUpload(server.api, token, { name: 'resumable.dcm', projectId, size: 6 * MiB });
    expect(created.status).toBe(201);
    const filler = path.join(small.dir, 'filler');
    if (small.real) fs.writeFileSync(filler, Buffer.alloc(Math.max(0, (await freeUnder(small.dir)) - 2 * MiB)));
    try {
      const patched = await patchUpload(uploadUrl(server.api, created), token, 0, dicomOf(6 * MiB));
      if (!small.real) {
        expect(patched.status).toBe(204);
        return;
      }
      expect(patched, JSON.stringify(patched.body)).toMatchObject({ status: 507 });
      expect(patched.body.message).toMatch(/^The server is low on storage and could not save this chunk; the bytes that arrived before it are kept\./);
    } finally {
      fs.rmSync(filler, { force: true });
    }
  });

  it('answers 507 with words, not 500, when the database finds the disk full (SQLite keeps its file under DATA_DIR)', async () => {
    const filler = path.join(small.dir, 'filler');
    if (small.real) fs.writeFileSync(filler, Buffer.alloc(0));
    try {
      if (small.real) {
        // Fill every byte, then ask for writes until SQLite needs a page it cannot have.
        const fd = fs.openSync(filler, 'a');
        try {
          for (;;) fs.writeSync(fd, Buffer.alloc(64 * 1024));
        } catch {
          // ENOSPC: full.
        } finally {
          fs.closeSync(fd);
        }
      }
      const statuses = new Set<number>();
      for (let i = 0; i < (dialect === 'sqlite' ? 2000 : 3) && !statuses.has(507); i += 1) {
        const answer = await call(`${server.api}/study-petitions`, { token, json: { name: `Project ${i} ${"x".repeat(200)}` } });
        statuses.add(answer.status);
        if (answer.status === 507) expect(answer.body.message).toBe(STORAGE_FULL_MESSAGE);
      }
      expect(statuses.has(500), JSON.stringify([...statuses])).toBe(false);
      expect(statuses.has(507), JSON.stringify([...statuses])).toBe(small.real && dialect === 'sqlite');
    } finally {
      fs.rmSync(filler, { force: true });
    }
    expect((await call(`${server.api}/study-petitions`, { token, json: { name: 'Room again' } })).status).toBe(201);
  });
});
