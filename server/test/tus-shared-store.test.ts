// The shared tus store and the cross-node locker on their own, with a real database and real
// storage: what they guarantee when requests misbehave in ways the two-node test cannot provoke.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { ERRORS } from '@tus/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgAdvisoryLocker } from '../src/tus/tus-pg-locker.js';
import { SharedTusStore } from '../src/tus/tus-shared-store.js';
import { createTestDatabase, dialects, type TestDatabase } from './databases.js';
import { makeCompany, makeProject, makeUser } from './factories.js';
import { login } from './http.js';
import { startTestServer, type TestServer } from './server.js';
import { createUpload, headUpload, patchUpload, tusFiles, uploadUrl } from './tus.js';
import { dicomFixture, download, expectNoLeftovers } from './uploads.js';

/** A body that sends `bytes` and then fails, as the request of a client that went away. */
function failingBody(bytes: Buffer): Readable {
  let sent = false;
  return new Readable({
    read() {
      if (sent) {
        setImmediate(() => this.destroy(new Error('the client went away')));
        return;
      }
      sent = true;
      this.push(bytes);
    },
  });
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

describe.each(dialects())('the shared tus store, on %s', (dialect) => {
  let server: TestServer;
  let store: SharedTusStore;
  let record: (size: number) => Promise<string>;
  let token: string;
  let projectId: number;

  beforeAll(async () => {
    server = await startTestServer(dialect, { TUS_STORE: 'shared' });
    const { services } = server;
    if (!(services.tusUploads.store instanceof SharedTusStore)) throw new Error('TUS_STORE=shared did not choose the shared store');
    store = services.tusUploads.store;
    const company = await makeCompany(services);
    const user = await makeUser(services, { company });
    const project = await makeProject(services, company);
    projectId = project.id;
    token = await login(server.api, user.username, user.password);
    // An upload recorded as a creation authorised by the service would be, then created in the store.
    record = async (size) => {
      const id = randomBytes(16).toString('hex');
      await services.repos.tusUploads.create(
        { id, user_id: user.id, company_id: company.id, project_id: project.id, file_name: 'a.dcm', size, delivery_id: null, relative_path: null },
        new Date(Date.now() + 3_600_000),
      );
      await store.create(await store.getUpload(id));
      return id;
    };
  });
  afterAll(() => server?.close());

  const chunkObjects = async (id: string) => {
    const keys: string[] = [];
    for await (const o of server.services.storage.list(`tus/${id}/`)) keys.push(o.key);
    return keys;
  };

  it('serves a whole upload over HTTP: HEAD from the records, chunks while it runs, nothing left once committed', async () => {
    const source = Buffer.concat([dicomFixture('s01_CT_small.dcm'), randomBytes(300_000)]);
    const url = uploadUrl(server.api, await createUpload(server.api, token, { name: 'shared.dcm', projectId, size: source.length }));
    const id = new URL(url).pathname.split('/').pop()!;
    expect((await patchUpload(url, token, 0, source.subarray(0, 200_000))).status).toBe(204);
    const head = await headUpload(url, token);
    expect(head.headers.get('upload-offset')).toBe('200000');
    expect(head.headers.get('upload-length')).toBe(String(source.length));
    expect(head.headers.get('upload-metadata')).toContain(`filename ${Buffer.from('shared.dcm').toString('base64')}`);
    expect(await chunkObjects(id)).toHaveLength(1);
    const last = await patchUpload(url, token, 200_000, source.subarray(200_000));
    expect(last.status).toBe(204);
    const file = await download(server.api, token, Number(last.headers.get('portal-file-id')));
    expect(sha256(file.bytes)).toBe(sha256(source));
    expect(await chunkObjects(id)).toEqual([]);
    expect(tusFiles(server.config.dataDir)).toEqual([]);
    await expectNoLeftovers(server.services.handle.db, server.config.dataDir);
  });

  it('keeps and counts what arrived of a body that failed, then answers the failure', async () => {
    const source = randomBytes(300_000);
    const id = await record(source.length);
    await expect(store.write(failingBody(source.subarray(0, 100_000)), id, 0)).rejects.toThrow('the client went away');
    expect((await store.getUpload(id)).offset).toBe(100_000);
    expect(await store.write(Readable.from([source.subarray(100_000)]), id, 100_000)).toBe(300_000);
    const whole = await store.assemble(id, source.length, { hash: true });
    expect(whole.sha256).toBe(sha256(source));
    expect(sha256(fs.readFileSync(whole.path))).toBe(sha256(source));
    await whole.release();
    expect(fs.existsSync(whole.path)).toBe(false);
    expect(await store.readHead(id, 132)).toEqual(source.subarray(0, 132));
  });

  it('counts one of two chunks written from the same offset without a lock, and reads only that one', async () => {
    const source = randomBytes(200_000);
    const rival = randomBytes(50_000);
    const id = await record(source.length);
    expect(await store.write(Readable.from([source.subarray(0, 120_000)]), id, 0)).toBe(120_000);
    // A request that lost its lock writes from the same offset: its chunk is refused (409) and removed.
    await expect(store.write(Readable.from([rival]), id, 0)).rejects.toBe(ERRORS.INVALID_OFFSET);
    expect(await chunkObjects(id)).toHaveLength(1);
    expect(await store.write(Readable.from([source.subarray(120_000)]), id, 120_000)).toBe(200_000);
    const whole = await store.assemble(id, source.length, { hash: true });
    expect(whole.sha256).toBe(sha256(source));
    await whole.release();
    // Termination removes every chunk object, counted or not.
    await server.services.tusUploads.remove(id);
    expect(await chunkObjects(id)).toEqual([]);
    await expect(store.getUpload(id)).rejects.toBe(ERRORS.FILE_NOT_FOUND);
  });

  it('refuses to assemble an upload whose chunks do not hold all its bytes', async () => {
    const id = await record(1000);
    await store.write(Readable.from([randomBytes(400)]), id, 0);
    await expect(store.assemble(id, 1000, { hash: false })).rejects.toThrow('has 400 of its 1000 bytes');
  });
});

describe.runIf(dialects().includes('postgres'))('the PostgreSQL advisory locker across nodes', () => {
  let database: TestDatabase;
  const lockers: PgAdvisoryLocker[] = [];
  const locker = (timeoutMs = 5000) => {
    const made = new PgAdvisoryLocker({ databaseUrl: database.databaseUrl!, acquireTimeoutMs: timeoutMs });
    lockers.push(made);
    return made;
  };
  beforeAll(async () => {
    database = await createTestDatabase('postgres');
  });
  afterAll(async () => {
    for (const l of lockers) await l.close();
    await database.drop();
  });

  it('asks the holder on another node to release, and hands the lock over once it does', async () => {
    const [nodeA, nodeB] = [locker(), locker()];
    const id = randomBytes(16).toString('hex');
    const held = nodeA.newLock(id);
    let releaseAsked = 0;
    await held.lock(new AbortController().signal, () => {
      releaseAsked += 1;
      // The holder stops, as tus's request would, and unlocks a moment later.
      if (releaseAsked === 1) setTimeout(() => void held.unlock(), 200);
    });
    const started = Date.now();
    const wanted = nodeB.newLock(id);
    await wanted.lock(new AbortController().signal, () => undefined);
    expect(releaseAsked).toBeGreaterThanOrEqual(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    await wanted.unlock();
  });

  it('answers a lock timeout (423 to the client) when the holder does not let go in time, or the request ends first', async () => {
    const [nodeA, nodeB] = [locker(), locker(300)];
    const id = randomBytes(16).toString('hex');
    const held = nodeA.newLock(id);
    await held.lock(new AbortController().signal, () => undefined);
    await expect(nodeB.newLock(id).lock(new AbortController().signal, () => undefined)).rejects.toBe(ERRORS.ERR_LOCK_TIMEOUT);
    const gone = new AbortController();
    setTimeout(() => gone.abort(), 50);
    await expect(locker().newLock(id).lock(gone.signal, () => undefined)).rejects.toBe(ERRORS.ERR_LOCK_TIMEOUT);
    await held.unlock();
  });

  it('frees the locks of a node whose connection is gone, as when its process dies', async () => {
    const [nodeA, nodeB] = [locker(), locker()];
    const id = randomBytes(16).toString('hex');
    await nodeA.newLock(id).lock(new AbortController().signal, () => undefined);
    await nodeA.close();
    const wanted = nodeB.newLock(id);
    await wanted.lock(new AbortController().signal, () => undefined);
    await wanted.unlock();
  });

  it('lets requests of one node for the same upload take turns', async () => {
    const node = locker();
    const id = randomBytes(16).toString('hex');
    const first = node.newLock(id);
    let asked = 0;
    await first.lock(new AbortController().signal, () => {
      asked += 1;
      if (asked === 1) setTimeout(() => void first.unlock(), 100);
    });
    const second = node.newLock(id);
    await second.lock(new AbortController().signal, () => undefined);
    await expect(first.unlock()).rejects.toThrow('Releasing an unlocked lock');
    await second.unlock();
  });
});
