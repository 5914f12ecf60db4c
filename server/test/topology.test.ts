// The proven topology (issue 16 item 3): one PostgreSQL database, one S3 bucket (s3rver on
// loopback), two API nodes (PROCESSING_IN_SERVER=false) and two `npm run worker` processes, all
// real processes running the bundle operators run (dist/main.js, dist/worker.js), each with a
// DATA_DIR of its own. Uploads go through both nodes in turn; a worker and an API node are killed
// mid-work; in the end every upload is ready with the counts of what was sent, every entry is
// recorded once, every download equals the source through either node, the bucket holds exactly
// what the database points to, and no process's own disk holds a stored object.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { sql } from 'kysely';
import * as tus from 'tus-js-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../src/db/database.js';
import { SEND_DIGEST } from '../src/notifications/notification-jobs.js';
import { buildIfChanged, PORTAL_TARGETS } from '../scripts/build-if-changed.js';
import { agoIso } from './clock.js';
import { createTestDatabase, dialects, type TestDatabase } from './databases.js';
import { call, login } from './http.js';
import { startDistServer, startDistWorker, type ServerProcess } from './processes.js';
import { startTestS3, TEST_S3_ACCESS_KEY_ID, TEST_S3_SECRET_ACCESS_KEY, type TestS3 } from './s3.js';
import { createUpload, encodeMetadata, patchUpload, uploadUrl } from './tus.js';
import { dicomFixture, makeArchive, sha256, upload } from './uploads.js';

const ADMIN = { ADMIN_USERNAME: 'root', ADMIN_PASSWORD: 'Topology!pw-16' };
const MiB = 1024 * 1024;
const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..');

/** Seven distinct DICOM instances (one SOP Instance UID each). */
const INSTANCES = [
  's01_CT_small.dcm',
  's03_CT_series5N_2062.dcm',
  's04_CT_series5N_2392.dcm',
  's05_CT_series5N_2693.dcm',
  's06_CT_series5N_3023.dcm',
  's07_CT_series5N_3353.dcm',
  's10_MR_small_implicit.dcm',
];

/**
 * What was sent, and the counts its summary must show. Members of zips and deliveries cycle
 * through INSTANCES, so a copy beyond the seventh is a duplicate.
 */
interface Sent {
  label: string;
  projectId: number;
  bytes: Buffer;
  /** Folder rows download as a zip made on the fly: compared member by member instead. */
  members?: Record<string, Buffer>;
  expected: { entries: number; instances: number; duplicates: number };
  fileId?: number;
}

const counts = (entries: number) => ({ entries, instances: Math.min(entries, INSTANCES.length), duplicates: Math.max(0, entries - INSTANCES.length) });
const cycled = (n: number, name: (i: number) => string) =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [name(i), dicomFixture(INSTANCES[i % INSTANCES.length]!)]));

interface Process {
  proc: ServerProcess;
  dataDir: string;
}
interface ApiNode extends Process {
  api: string;
  token: string;
}

const alive = (p: Process) => p.proc.child.exitCode === null && p.proc.child.signalCode === null;

async function stop(p: Process, signal: NodeJS.Signals): Promise<void> {
  if (!alive(p)) return;
  p.proc.child.kill(signal);
  await p.proc.waitForExit();
}

/** Every regular file under a folder, relative to it. */
function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => path.relative(dir, path.join(d.parentPath, d.name)));
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 120_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** tus-js-client's settings for sending `name` to `node` (the web app's client), in 1 MiB chunks. */
function tusOptions(node: ApiNode, name: string, projectId: number): tus.UploadOptions {
  return {
    endpoint: `${node.api}/uploads`,
    chunkSize: MiB,
    retryDelays: null,
    headers: { Authorization: `Bearer ${node.token}` },
    metadata: { filename: name, studypetitionid: String(projectId) },
  };
}

/** A whole upload through tus-js-client; answers the file id. */
function tusUpload(
  node: ApiNode,
  name: string,
  projectId: number,
  data: Buffer,
  options: Partial<tus.UploadOptions> = {},
  onAnswer: (req: tus.HttpRequest, res: tus.HttpResponse) => void = () => undefined,
): Promise<number> {
  let fileId: number | undefined;
  return new Promise<number>((resolve, reject) => {
    const u = new tus.Upload(data, {
      ...tusOptions(node, name, projectId),
      ...options,
      onAfterResponse: (req, res) => {
        onAnswer(req, res);
        const id = res.getHeader('Portal-File-Id');
        if (id) fileId = Number(id);
      },
      onSuccess: () => (fileId === undefined ? reject(new Error(`${name}: no Portal-File-Id`)) : resolve(fileId)),
      onError: reject,
    });
    u.start();
  });
}

describe.runIf(dialects().includes('postgres'))('two API nodes and two workers on one PostgreSQL database and one S3 bucket', () => {
  let database: TestDatabase;
  let s3: TestS3;
  let bucket: string;
  let handle: DatabaseHandle;
  let scratch: string;
  const nodes: ApiNode[] = [];
  const workers: Process[] = [];
  const sent: Sent[] = [];

  const commonEnv = () => ({ DATABASE_URL: database.databaseUrl, ...s3.env(bucket), ...ADMIN });

  async function startNode(dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-api-'))): Promise<ApiNode> {
    const proc = await startDistServer({ ...commonEnv(), DATA_DIR: dataDir, PROCESSING_IN_SERVER: 'false' });
    const api = `${proc.url}/api/v1`;
    return { proc, dataDir, api, token: await login(api, ADMIN.ADMIN_USERNAME, ADMIN.ADMIN_PASSWORD) };
  }

  async function startWorker(dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-worker-'))): Promise<Process> {
    // A short lease, so the job of a killed worker is taken over within seconds.
    const proc = await startDistWorker({ ...commonEnv(), DATA_DIR: dataDir, JOB_LEASE_SECONDS: '5', PROCESSING_CONCURRENCY: '2' });
    return { proc, dataDir };
  }

  const newProject = async (node: ApiNode, name: string): Promise<number> =>
    (await call(`${node.api}/study-petitions`, { token: node.token, json: { name, valid: true, status: 'Pendant' } })).body.data[0].id;

  beforeAll(async () => {
    // The bundle operators run; rebuilt only when the server's sources changed since the last build.
    buildIfChanged(REPO_ROOT, PORTAL_TARGETS.filter((t) => t.name === 'server'), false, () => undefined);
    database = await createTestDatabase('postgres');
    s3 = await startTestS3();
    bucket = await s3.createBucket();
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-topology-'));
    // Node A migrates and creates the administrator; the others start beside it.
    nodes.push(await startNode());
    const [b, w1, w2] = await Promise.all([startNode(), startWorker(), startWorker()]);
    nodes.push(b);
    workers.push(w1, w2);
    handle = openDatabase({ databaseUrl: database.databaseUrl, dataDir: database.dataDir });
  }, 120_000);

  afterAll(async () => {
    await Promise.all([...nodes, ...workers].map((p) => stop(p, 'SIGTERM')));
    await handle?.close();
    await s3?.close();
    for (const p of [...nodes, ...workers]) fs.rmSync(p.dataDir, { recursive: true, force: true });
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
    await database?.drop();
  });

  const node = (i: number) => nodes[i % 2]!;

  it('takes 36 uploads through both nodes in turn, multipart and tus, single DICOM files and zips', async () => {
    const jobs: Promise<void>[] = [];
    for (let i = 0; i < 36; i += 1) {
      const via = node(i);
      const viaTus = Math.floor(i / 2) % 2 === 1;
      const isZip = i % 3 === 2;
      const label = `${isZip ? 'zip' : 'dicom'}-${viaTus ? 'tus' : 'multipart'}-${i}`;
      let bytes: Buffer;
      let expected: Sent['expected'];
      if (isZip) {
        // 3 to 10 members, deflated by Info-ZIP's zip: more than seven holds duplicates.
        const members = cycled(3 + (i % 8), (m) => `IM${String(m).padStart(4, '0')}`);
        bytes = makeArchive(scratch, members, 'zip -q out.zip IM*', 'out.zip');
        expected = counts(Object.keys(members).length);
      } else {
        bytes = dicomFixture(INSTANCES[i % INSTANCES.length]!);
        expected = counts(1);
      }
      const name = `${label}${isZip ? '.zip' : '.dcm'}`;
      const projectId = await newProject(via, label);
      const item: Sent = { label, projectId, bytes, expected };
      sent.push(item);
      // Four in flight at a time, as a few browsers would send.
      jobs.push(
        (async () => {
          if (viaTus) {
            item.fileId = await tusUpload(via, name, projectId, bytes);
          } else {
            const answer = await upload(via.api, via.token, { name, data: bytes }, projectId);
            expect(answer.status, label).toBe(201);
            item.fileId = answer.body.data[0].id;
          }
        })(),
      );
      if (jobs.length === 4) await Promise.all(jobs.splice(0));
    }
    await Promise.all(jobs);
    expect(sent.every((s) => typeof s.fileId === 'number')).toBe(true);
  });

  it('takes a delivery of 200 files whose files arrive through both nodes in turn', async () => {
    const [a] = nodes as [ApiNode, ApiNode];
    const projectId = await newProject(a, 'delivery');
    const deliveryId: number = (await call(`${a.api}/deliveries`, { method: 'POST', token: a.token, json: { studypetitionid: projectId, name: 'CD' } })).body.data[0].id;
    const members = cycled(200, (m) => `DICOM/S${Math.floor(m / 50)}/IM${String(m).padStart(4, '0')}`);
    const paths = Object.keys(members);
    for (let at = 0; at < paths.length; at += 8) {
      await Promise.all(
        paths.slice(at, at + 8).map(async (relativePath, k) => {
          const via = node(at + k);
          const data = members[relativePath]!;
          const metadata = encodeMetadata({ filename: path.basename(relativePath), delivery: String(deliveryId), relativePath });
          const answer = await createUpload(via.api, via.token, { size: data.length, body: data, metadata });
          expect(answer.status, relativePath).toBe(201);
        }),
      );
    }
    const completed = await call(`${nodes[1]!.api}/deliveries/${deliveryId}/complete`, { method: 'POST', token: nodes[1]!.token });
    expect(completed.status).toBe(200);
    sent.push({ label: 'delivery', projectId, bytes: Buffer.alloc(0), members, expected: counts(200), fileId: completed.body.data[0].file_id });
  });

  it('finishes on node B a tus upload started on node A', async () => {
    const [a, b] = nodes as [ApiNode, ApiNode];
    const projectId = await newProject(a, 'a-to-b');
    const bytes = dicomFixture('s01_CT_small.dcm');
    const half = Math.floor(bytes.length / 2);
    const url = uploadUrl(a.api, await createUpload(a.api, a.token, { name: 'a-to-b.dcm', projectId, size: bytes.length }));
    expect((await patchUpload(url, a.token, 0, bytes.subarray(0, half))).status).toBe(204);
    const onB = `${b.proc.url}${new URL(url).pathname}`;
    const rest = await patchUpload(onB, b.token, half, bytes.subarray(half));
    expect(rest.status).toBe(204);
    sent.push({ label: 'a-to-b', projectId, bytes, expected: counts(1), fileId: Number(rest.headers.get('portal-file-id')) });
  });

  it('lets the other worker finish the job of a worker killed mid-way, recording each entry once', async () => {
    // Let the queue drain first, so the large zip's job is the one running.
    await until('the queue to drain', async () => {
      const { n } = await handle.db.selectFrom('jobs').select((eb) => eb.fn.countAll<string>().as('n')).where('status', 'in', ['queued', 'running']).executeTakeFirstOrThrow();
      return Number(n) === 0 ? true : undefined;
    });
    const via = node(1);
    const projectId = await newProject(via, 'large zip');
    const members = cycled(600, (m) => `IM${String(m).padStart(4, '0')}`);
    const bytes = makeArchive(scratch, members, 'zip -q large.zip IM*', 'large.zip');
    const answer = await upload(via.api, via.token, { name: 'large.zip', data: bytes }, projectId);
    expect(answer.status).toBe(201);
    const fileId: number = answer.body.data[0].id;
    sent.push({ label: 'large zip', projectId, bytes, expected: counts(600), fileId });

    // Caught once some of its entries are recorded and many are still to come.
    const holder = await until(
      'the large zip half processed',
      async () => {
        const job = await handle.db.selectFrom('jobs').select(['status', 'locked_by']).where('subject', '=', `files/${fileId}`).where('name', '=', 'process-upload').executeTakeFirst();
        const { n } = await handle.db.selectFrom('file_entries').select((eb) => eb.fn.countAll<string>().as('n')).where('file_id', '=', fileId).executeTakeFirstOrThrow();
        if (job?.status !== 'running' || Number(n) < 50) return undefined;
        expect(Number(n), 'the job ended before it could be interrupted: make the zip larger').toBeLessThan(600);
        return workers.find((w) => job.locked_by?.startsWith(`${w.proc.child.pid}-`));
      },
      120_000,
      20,
    );
    const survivor = workers.find((w) => w !== holder)!;
    await stop(holder, 'SIGKILL');
    // Its lease over now, as if JOB_LEASE_SECONDS had passed without its heartbeat (clock.ts).
    await handle.db.updateTable('jobs').set({ lease_until: agoIso(100) }).where('subject', '=', `files/${fileId}`).where('name', '=', 'process-upload').where('status', '=', 'running').execute();
    // The survivor takes the job over once the dead worker's lease runs out.
    await until('the job taken over', async () => {
      const job = await handle.db.selectFrom('jobs').select(['status', 'locked_by']).where('subject', '=', `files/${fileId}`).where('name', '=', 'process-upload').executeTakeFirstOrThrow();
      return job.status === 'done' || job.locked_by?.startsWith(`${survivor.proc.child.pid}-`) ? true : undefined;
    });
    // Restarted as its service manager would, on its own DATA_DIR: it clears its work area.
    workers[workers.indexOf(holder)] = await startWorker(holder.dataDir);
  });

  it('lets a client resume on node B an upload whose node A was killed mid-way', async () => {
    const [a, b] = nodes as [ApiNode, ApiNode];
    const projectId = await newProject(a, 'survivor');
    // A DICOM header and filler to 12 MiB, sent in 1 MiB chunks.
    const head = dicomFixture('s10_MR_small_implicit.dcm');
    const bytes = Buffer.concat([head, Buffer.alloc(12 * MiB - head.length, 0x5a)]);
    let killed: Promise<void> | undefined;
    let url: string | null = null;
    await new Promise<void>((resolve, reject) => {
      const first = new tus.Upload(bytes, {
        ...tusOptions(a, 'survivor.dcm', projectId),
        onChunkComplete: (_size, accepted) => {
          if (accepted >= 4 * MiB && !killed) killed = stop(a, 'SIGKILL');
        },
        onError: () => {
          url = first.url;
          resolve();
        },
        onSuccess: () => reject(new Error('the upload finished although its node was killed')),
      });
      first.start();
    });
    await killed;
    expect(url).not.toBeNull();
    let resumedAt = -1;
    const fileId = await tusUpload(b, 'survivor.dcm', projectId, bytes, {
      uploadUrl: `${b.proc.url}${new URL(url!).pathname}`,
    }, (req, res) => {
      if (req.getMethod() === 'HEAD') resumedAt = Number(res.getHeader('Upload-Offset'));
    });
    // It went on from what node A had stored, not from zero.
    expect(resumedAt).toBeGreaterThanOrEqual(4 * MiB);
    sent.push({ label: 'survivor', projectId, bytes, expected: counts(1), fileId });
    // Node A comes back on its own DATA_DIR, as its service manager would restart it.
    nodes[0] = await startNode(a.dataDir);
  });

  it('ends with every upload ready with the counts of what was sent, and every entry recorded once', async () => {
    expect(sent).toHaveLength(40);
    const ids = sent.map((s) => s.fileId!);
    await until(
      'every upload processed',
      async () => {
        const rows = await handle.db.selectFrom('project_files').select(['id', 'processing_status']).where('id', 'in', ids).execute();
        return rows.length === ids.length && rows.every((r) => r.processing_status === 'ready' || r.processing_status === 'failed') ? true : undefined;
      },
      150_000,
      250,
    );
    for (const [i, item] of sent.entries()) {
      const via = node(i);
      const listed = (await call(`${via.api}/study-petitions-files?study_petition_id=${item.projectId}`, { token: via.token })).body.data;
      expect(listed, item.label).toHaveLength(1);
      expect(listed[0], item.label).toMatchObject({
        id: item.fileId,
        processing: { status: 'ready', error: null, summary: { ...item.expected, in_project: 0, unreadable: 0, skipped: 0, other: 0 } },
      });
      if (!item.members) expect(listed[0], item.label).toMatchObject({ filesize: item.bytes.length, sha256: sha256(item.bytes) });
    }
    // Each (file, seq) once, seq running 1..n with no gap, and n what was sent.
    const perFile = await handle.db
      .selectFrom('file_entries')
      .select(['file_id', sql<string>`count(*)`.as('n'), sql<string>`count(distinct seq)`.as('distinct_seq'), sql<string>`count(distinct path)`.as('paths'), sql<string>`max(seq)`.as('last')])
      .groupBy('file_id')
      .execute();
    const byId = new Map(perFile.map((r) => [r.file_id, r]));
    for (const item of sent) {
      const row = byId.get(item.fileId!);
      expect({ label: item.label, n: Number(row?.n), distinct: Number(row?.distinct_seq), paths: Number(row?.paths), last: Number(row?.last) }).toEqual({
        label: item.label,
        n: item.expected.entries,
        distinct: item.expected.entries,
        paths: item.expected.entries,
        last: item.expected.entries,
      });
    }
    // Each processed upload's thumbnails are drawn by a job of their own, queued as it turned ready.
    await until(
      'the thumbnails drawn',
      async () => {
        const { n } = await handle.db.selectFrom('jobs').select((eb) => eb.fn.countAll<string>().as('n')).where('status', 'in', ['queued', 'running']).executeTakeFirstOrThrow();
        return Number(n) === 0 ? true : undefined;
      },
      120_000,
    );
    // One processing job per upload, each done; the large zip's in two runs (the killed one and the
    // survivor's). Each processed upload's thumbnails are a job of their own, done too.
    const all = await handle.db.selectFrom('jobs').select(['subject', 'status', 'attempts', 'name']).execute();
    expect(all.filter((j) => j.status !== 'done')).toEqual([]);
    // The day's digest is queued by an API node's periodic sweep (every UPLOAD_LEASE_SECONDS, from
    // NOTIFY_DIGEST_HOUR_UTC on) once this file has run two minutes: on a busy machine, not always.
    const jobs = all.filter((j) => j.name !== 'render-thumbnails' && j.name !== SEND_DIGEST.name);
    expect(jobs.map((j) => j.subject).sort()).toEqual(sent.map((s) => `files/${s.fileId}`).sort());
    const large = sent.find((s) => s.label === 'large zip')!;
    expect(jobs.find((j) => j.subject === `files/${large.fileId}`)?.attempts).toBe(2);
  });

  it('downloads every upload through either node as the bytes that were sent', async () => {
    for (const item of sent) {
      for (const via of nodes) {
        const response = await fetch(`${via.api}/download-study-petitions-files/${item.fileId}`, { headers: { authorization: `Bearer ${via.token}` } });
        expect(response.status, item.label).toBe(200);
        const bytes = Buffer.from(await response.arrayBuffer());
        if (!item.members) {
          expect(sha256(bytes), `${item.label} through ${via.api}`).toBe(sha256(item.bytes));
          continue;
        }
        // A delivery comes as a zip made while it is sent: unpacked by a real tool, member by member.
        const dir = fs.mkdtempSync(path.join(scratch, 'unzip-'));
        fs.writeFileSync(path.join(dir, 'delivery.zip'), bytes);
        execFileSync('bsdtar', ['-xf', 'delivery.zip', '-C', dir], { cwd: dir });
        const unpacked = filesUnder(dir).filter((f) => f !== 'delivery.zip');
        expect(unpacked.length, item.label).toBe(Object.keys(item.members).length);
        for (const [member, data] of Object.entries(item.members)) {
          const found = unpacked.find((f) => f === member || f.endsWith(`/${member}`));
          expect(found, member).toBeDefined();
          expect(sha256(fs.readFileSync(path.join(dir, found!))), member).toBe(sha256(data));
        }
      }
    }
  });

  it('leaves in the bucket exactly the objects rows point to, and no stored object on any process\'s disk', async () => {
    const client = new S3Client({
      region: 'us-east-1',
      endpoint: s3.endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: TEST_S3_ACCESS_KEY_ID, secretAccessKey: TEST_S3_SECRET_ACCESS_KEY },
    });
    const inBucket: string[] = [];
    let token: string | undefined;
    do {
      const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }));
      inBucket.push(...(page.Contents ?? []).map((o) => o.Key!));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    client.destroy();
    const db = handle.db;
    const pointed = new Set<string>([
      // A folder row's key names its delivery, not an object: its bytes are its members' objects.
      ...(await db.selectFrom('project_files').select('storage_key').where('kind', '!=', 'folder').execute()).map((r) => r.storage_key),
      ...(await db.selectFrom('delivery_files').select('storage_key').execute()).map((r) => r.storage_key),
      ...(await db.selectFrom('file_entries').select('storage_key').where('storage_key', 'is not', null).execute()).map((r) => r.storage_key!),
      ...(await db.selectFrom('series_thumbnails').select('storage_key').where('storage_key', 'is not', null).execute()).map((r) => r.storage_key!),
      ...(await db.selectFrom('tus_chunks').select('object_key').execute()).map((r) => r.object_key),
    ]);
    expect(inBucket.filter((key) => !pointed.has(key)), 'objects no row points to').toEqual([]);
    expect([...pointed].filter((key) => !inBucket.includes(key)), 'rows pointing to no object').toEqual([]);
    expect(await s3.unfinishedUploads(bucket), 'unfinished multipart uploads').toEqual([]);
    expect(await db.selectFrom('tus_uploads').select('id').where('state', '<>', 'finished').execute()).toEqual([]);
    expect(await db.selectFrom('pending_uploads').select('id').execute()).toEqual([]);
    // A restarted worker removes the work folder of the job it lost once that job has ended
    // elsewhere, within a lease period (5 s here).
    const processes = [...nodes, ...workers];
    await until('work folders of ended jobs removed', () => Promise.resolve(processes.every((p) => filesUnder(p.dataDir).length === 0) ? true : undefined), 20_000).catch(
      () => undefined,
    );
    for (const p of processes) expect(filesUnder(p.dataDir), p.dataDir).toEqual([]);
  });
});
