// Resumable uploads on several API nodes (TUS_STORE=shared, issue 16 item 2): two real server
// processes on one PostgreSQL database and one storage, each with its own DATA_DIR (node B's
// objects folder is node A's, as a shared mount or a bucket would be), so nothing of an upload can
// travel through a node's own disk or memory.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import * as tus from 'tus-js-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../src/db/database.js';
import { createTestDatabase, dialects, type TestDatabase } from './databases.js';
import { call, login } from './http.js';
import { startServerProcess, type ServerProcess } from './processes.js';
import { createUpload, deleteUpload, headUpload, patchUpload, tusFiles, uploadUrl } from './tus.js';
import { dicomFixture, download, listFiles, sha256, storedFiles } from './uploads.js';

const ADMIN = { ADMIN_USERNAME: 'root', ADMIN_PASSWORD: 'Tus!Nodes-pw16' };
const MiB = 1024 * 1024;

interface Node {
  server: ServerProcess;
  dataDir: string;
  api: string;
  token: string;
}

/** A DICOM header followed by bytes no compression could shorten. */
const dicomOf = (extraBytes: number) => Buffer.concat([dicomFixture('s01_CT_small.dcm'), randomBytes(extraBytes)]);

/** The same upload as seen from another node: its path on that node's address. */
const on = (node: Node, url: string) => `${node.server.url}${new URL(url).pathname}`;

/** A PATCH whose body the test writes itself: a part now, the rest (or nothing) later. */
function openPatch(url: string, token: string, offset: number) {
  const request = http.request(url, {
    method: 'PATCH',
    headers: {
      'tus-resumable': '1.0.0',
      'upload-offset': String(offset),
      'content-type': 'application/offset+octet-stream',
      authorization: `Bearer ${token}`,
    },
  });
  const answered = new Promise<number>((resolve) => {
    request.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    request.on('error', () => resolve(0));
  });
  return { request, answered };
}

describe.runIf(dialects().includes('postgres'))('resumable uploads on two API nodes sharing PostgreSQL and storage', () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  const nodes: Node[] = [];
  const extraDirs: string[] = [];
  let projectId: number;

  /** A node with its own DATA_DIR whose objects folder is the shared one. */
  async function startNode(extra: Record<string, string> = {}): Promise<Node> {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-node-'));
    extraDirs.push(dataDir);
    fs.mkdirSync(path.join(database.dataDir, 'objects'), { recursive: true, mode: 0o700 });
    fs.symlinkSync(path.join(database.dataDir, 'objects'), path.join(dataDir, 'objects'));
    const server = await startServerProcess({
      DATA_DIR: dataDir,
      DATABASE_URL: database.databaseUrl,
      TUS_STORE: 'shared',
      ...ADMIN,
      ...extra,
    });
    const api = `${server.url}/api/v1`;
    return { server, dataDir, api, token: await login(api, ADMIN.ADMIN_USERNAME, ADMIN.ADMIN_PASSWORD) };
  }

  async function stop(node: Node, signal: NodeJS.Signals): Promise<void> {
    node.server.child.kill(signal);
    await node.server.waitForExit();
  }

  /** Chunk objects of unfinished uploads in the shared storage. */
  const chunkObjects = () => storedFiles(database.dataDir).filter((f) => f.startsWith('tus/'));

  const create = async (node: Node, name: string, size: number) =>
    uploadUrl(node.api, await createUpload(node.api, node.token, { name, projectId, size }));

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    // Node A migrates and creates the administrator before B starts, as a rolling start would.
    nodes.push(await startNode());
    nodes.push(await startNode());
    handle = openDatabase({ databaseUrl: database.databaseUrl, dataDir: database.dataDir });
    const [a] = nodes;
    projectId = (await call(`${a!.api}/study-petitions`, { token: a!.token, json: { name: 'Nodes', valid: true, status: 'Pendant' } })).body.data[0].id;
  }, 90_000);

  afterAll(async () => {
    for (const node of nodes) if (node.server.child.exitCode === null && node.server.child.signalCode === null) await stop(node, 'SIGTERM');
    await handle?.close();
    for (const dir of extraDirs) fs.rmSync(dir, { recursive: true, force: true });
    await database?.drop();
  });

  it('continues an upload started on node A on node B, chunk by chunk in turn, and commits one file with one job', async () => {
    const [a, b] = nodes as [Node, Node];
    const source = dicomOf(5 * MiB);
    const url = await create(a, 'alternating.dcm', source.length);
    let fileId: string | null = null;
    for (let offset = 0, i = 0; offset < source.length; offset += MiB, i += 1) {
      const node = i % 2 === 0 ? a : b;
      // Each node reports the offset the other one reached.
      expect((await headUpload(on(node, url), node.token)).headers.get('upload-offset')).toBe(String(offset));
      const answer = await patchUpload(on(node, url), node.token, offset, source.subarray(offset, offset + MiB));
      expect(answer.status).toBe(204);
      fileId = answer.headers.get('portal-file-id');
    }
    expect(fileId).not.toBeNull();
    for (const node of [a, b]) {
      const listed = (await listFiles(node.api, node.token, projectId)).body.data.filter((f: { file: string }) => f.file === 'alternating.dcm');
      expect(listed).toMatchObject([{ id: Number(fileId), filesize: source.length, sha256: sha256(source) }]);
      expect(sha256((await download(node.api, node.token, Number(fileId))).bytes)).toBe(sha256(source));
    }
    // One processing job (its series' thumbnails are a job of their own, after it).
    const jobs = await handle.db.selectFrom('jobs').select('id').where('subject', '=', `files/${fileId}`).where('name', '=', 'process-upload').execute();
    expect(jobs).toHaveLength(1);
    expect(chunkObjects()).toEqual([]);
    expect(await handle.db.selectFrom('tus_offsets').selectAll().execute()).toEqual([]);
    expect(await handle.db.selectFrom('tus_chunks').selectAll().execute()).toEqual([]);
    // No node's own disk held any of it.
    for (const node of [a, b]) expect(tusFiles(node.dataDir)).toEqual([]);
    // Either node tells a client that lost the last answer that the upload is complete, and which file it became.
    for (const node of [a, b]) {
      const head = await headUpload(on(node, url), node.token);
      expect(head.status).toBe(200);
      expect(head.headers.get('upload-offset')).toBe(String(source.length));
      expect(head.headers.get('portal-file-id')).toBe(fileId);
    }
  });

  it('lets only one of two PATCHes sent to two nodes at once write: the later asks the earlier to stop, then answers 409', async () => {
    const [a, b] = nodes as [Node, Node];
    const source = dicomOf(2 * MiB);
    const url = await create(a, 'contended.dcm', source.length);
    // A PATCH on A sends its first 256 KiB and then holds its body open, as a stalled client would.
    const slow = openPatch(on(a, url), a.token, 0);
    slow.request.write(source.subarray(0, 256 * 1024));
    await new Promise((r) => setTimeout(r, 1000));
    // The same bytes again on B, from the same offset: B asks A to release the upload; A stores
    // what arrived and unlocks; B then finds the offset moved on and refuses to write.
    const rival = await patchUpload(on(b, url), b.token, 0, source.subarray(0, MiB));
    expect(rival.status).toBe(409);
    expect(rival.body).toEqual({ message: expect.stringContaining('ask where it stands (HEAD)') });
    expect(await slow.answered).toBe(204);
    slow.request.destroy();
    const offset = Number((await headUpload(on(b, url), b.token)).headers.get('upload-offset'));
    expect(offset).toBe(256 * 1024);
    // The upload goes on from there, and its bytes are the source's: nothing was written twice.
    const rest = await patchUpload(on(b, url), b.token, offset, source.subarray(offset));
    expect(rest.status).toBe(204);
    const fileId = Number(rest.headers.get('portal-file-id'));
    expect(sha256((await download(b.api, b.token, fileId)).bytes)).toBe(sha256(source));
    expect(chunkObjects()).toEqual([]);
  });

  it('ends on node B an upload created on node A, leaving no chunk object and no record', async () => {
    const [a, b] = nodes as [Node, Node];
    const source = dicomOf(2 * MiB);
    const url = await create(a, 'cancelled.dcm', source.length);
    expect((await patchUpload(on(a, url), a.token, 0, source.subarray(0, MiB))).status).toBe(204);
    expect((await patchUpload(on(b, url), b.token, MiB, source.subarray(MiB, 2 * MiB))).status).toBe(204);
    expect(chunkObjects()).toHaveLength(2);
    expect((await deleteUpload(on(b, url), b.token)).status).toBe(204);
    expect((await headUpload(on(a, url), a.token)).status).toBe(404);
    expect(chunkObjects()).toEqual([]);
    // Finished uploads of earlier cases keep their record, without bytes, until they expire.
    expect(await handle.db.selectFrom('tus_uploads').selectAll().where('state', '<>', 'finished').execute()).toEqual([]);
    expect(await handle.db.selectFrom('tus_offsets').selectAll().execute()).toEqual([]);
  });

  it('lets a client resume on node B after node A was killed mid-PATCH, re-sending only the chunk that was cut', async () => {
    const [a, b] = nodes as [Node, Node];
    const source = dicomOf(6 * MiB);
    const url = await create(a, 'survivor.dcm', source.length);
    for (let offset = 0; offset < 2 * MiB; offset += MiB) {
      expect((await patchUpload(on(a, url), a.token, offset, source.subarray(offset, offset + MiB))).status).toBe(204);
    }
    // The third chunk is half sent when node A dies.
    const cut = openPatch(on(a, url), a.token, 2 * MiB);
    cut.request.write(source.subarray(2 * MiB, 2 * MiB + MiB / 2));
    await new Promise((r) => setTimeout(r, 500));
    await stop(a, 'SIGKILL');
    await cut.answered;
    // A's advisory lock went with its connection: B answers at once, from the last whole chunk.
    let resumedAt = -1;
    let patches = 0;
    let fileId: number | undefined;
    await new Promise<void>((resolve, reject) => {
      const upload = new tus.Upload(source, {
        uploadUrl: on(b, url),
        chunkSize: MiB,
        retryDelays: null,
        headers: { Authorization: `Bearer ${b.token}` },
        onBeforeRequest: (req) => {
          if (req.getMethod() === 'PATCH') patches += 1;
        },
        onAfterResponse: (req, res) => {
          if (req.getMethod() === 'HEAD') resumedAt = Number(res.getHeader('Upload-Offset'));
          const id = res.getHeader('Portal-File-Id');
          if (id) fileId = Number(id);
        },
        onSuccess: () => resolve(),
        onError: reject,
      });
      upload.start();
    });
    expect(resumedAt).toBe(2 * MiB);
    // Only the rest was sent, from the start of the chunk that was cut.
    expect(patches).toBe(Math.ceil((source.length - 2 * MiB) / MiB));
    expect(sha256((await download(b.api, b.token, fileId!)).bytes)).toBe(sha256(source));
    expect(chunkObjects()).toEqual([]);
  });

  it('removes an expired upload and chunks no record names, whichever node sweeps', async () => {
    const b = nodes[1]!;
    const source = dicomOf(MiB);
    const url = await create(b, 'forgotten.dcm', source.length);
    expect((await patchUpload(on(b, url), b.token, 0, source.subarray(0, MiB / 2))).status).toBe(204);
    // A chunk of an upload whose record is gone (its node died between storing it and noticing).
    const orphan = path.join(database.dataDir, 'objects', 'tus', 'f'.repeat(32));
    fs.mkdirSync(orphan, { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(orphan, '0'.repeat(16)), randomBytes(1000), { mode: 0o600 });
    expect(chunkObjects()).toHaveLength(2);
    await handle.db.updateTable('tus_uploads').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).execute();
    // A third node starting up sweeps what the others left.
    const c = await startNode();
    nodes.push(c);
    expect(c.server.logs()).toContain('removed expired and abandoned resumable uploads');
    expect(chunkObjects()).toEqual([]);
    expect((await headUpload(on(b, url), b.token)).status).toBe(404);
    expect(await handle.db.selectFrom('tus_uploads').selectAll().execute()).toEqual([]);
    expect(await handle.db.selectFrom('tus_offsets').selectAll().execute()).toEqual([]);
  });
});
