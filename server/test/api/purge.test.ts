import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWithAuditContext } from '../../src/audit/index.js';
import { CLI_ACTOR, runCommand } from '../../src/admin/commands.js';
import type { CompanyRow } from '../../src/db/schema.js';
import { dialects } from '../databases.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from '../factories.js';
import { call, login } from '../http.js';
import { runCli } from '../admin-cli.js';
import { startTestServer, type TestServer } from '../server.js';
import { createUpload, encodeMetadata } from '../tus.js';
import { dicomFixture, download, makeArchive, storedFiles, upload, waitProcessed } from '../uploads.js';

const CT = dicomFixture('s01_CT_small.dcm');
const MR = dicomFixture('s07_CT_series5N_3353.dcm');
const DAY_MS = 24 * 3_600_000;

async function until(condition: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 600; i += 1) {
    if (await condition()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('the server did not get there');
}

/** Everything a test server's project holds, uploaded, processed and then deleted, one by one. */
function portal(server: () => TestServer) {
  const api = () => server().api;
  const db = () => server().services.handle.db;
  return {
    /**
     * Waits until the file's series thumbnails are drawn (a job queued once processing ends): a
     * deletion while one is drawn leaves the file to a later purge. The pictures' bytes, which a
     * purge frees with the file's.
     */
    async drawn(fileId: number): Promise<number> {
      for (let i = 0; i < 300; i += 1) {
        const drawing = await db().selectFrom('jobs').select('id').where('name', '=', 'render-thumbnails').where('subject', '=', `files/${fileId}`).where('status', 'in', ['queued', 'running']).executeTakeFirst();
        const rows = await db().selectFrom('series_thumbnails').select('size').where('file_id', '=', fileId).execute();
        if (!drawing && rows.length > 0) return rows.reduce((n, r) => n + Number(r.size ?? 0), 0);
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`the thumbnails of file ${fileId} were not drawn`);
    },
    /** A deflated zip: its entries are extracted into objects of their own (entries/<id>/…). */
    async archive(token: string, projectId: number, scratch: string): Promise<number> {
      const zip = makeArchive(scratch, { 'a/IM1': CT, 'a/IM2': MR }, 'zip -q -r out.zip a', 'out.zip');
      const answer = await upload(api(), token, { name: 'export.zip', data: zip }, projectId);
      expect(answer.status).toBe(201);
      const id = answer.body.data[0].id as number;
      expect((await waitProcessed(api(), token, projectId, id)).processing.status).toBe('ready');
      return id;
    },
    async delivery(token: string, projectId: number): Promise<number> {
      const created = await call(`${api()}/deliveries`, { method: 'POST', token, json: { studypetitionid: projectId, name: 'CD export' } });
      expect(created.status).toBe(201);
      const id = created.body.data[0].id as number;
      for (const [relativePath, data] of [['DICOM/IM1', CT], ['DICOM/IM2', MR]] as const) {
        const sent = await createUpload(api(), token, { size: data.length, body: data, metadata: encodeMetadata({ filename: 'x', delivery: String(id), relativePath }) });
        expect(sent.status).toBe(201);
      }
      const completed = await call(`${api()}/deliveries/${id}/complete`, { method: 'POST', token });
      expect(completed.status).toBe(200);
      const fileId = completed.body.data[0].file_id as number;
      expect((await waitProcessed(api(), token, projectId, fileId)).processing.status).toBe('ready');
      return fileId;
    },
    async deleteFile(token: string, fileId: number): Promise<void> {
      expect((await call(`${api()}/study-petitions-files-delete/${fileId}`, { method: 'PUT', token })).status).toBe(200);
    },
    /** The stored objects the file's rows point to (its upload, a delivery's files, its entries). */
    async keysOf(fileId: number): Promise<string[]> {
      const file = await db().selectFrom('project_files').select(['storage_key', 'kind']).where('id', '=', fileId).executeTakeFirstOrThrow();
      const members = await db()
        .selectFrom('delivery_files')
        .innerJoin('deliveries', 'deliveries.id', 'delivery_files.delivery_id')
        .select('delivery_files.storage_key')
        .where('deliveries.file_id', '=', fileId)
        .execute();
      const entries = await db().selectFrom('file_entries').select('storage_key').where('file_id', '=', fileId).where('storage_key', 'is not', null).execute();
      const pictures = await db().selectFrom('series_thumbnails').select('storage_key').where('file_id', '=', fileId).where('storage_key', 'is not', null).execute();
      const keys = [...(file.kind === 'folder' ? [] : [file.storage_key]), ...members.map((m) => m.storage_key), ...entries.map((e) => e.storage_key!), ...pictures.map((t) => t.storage_key!)];
      return [...new Set(keys)].sort();
    },
    stored: () => new Set(storedFiles(server().database.dataDir)),
    async purgedAt(fileId: number): Promise<string | null> {
      return (await db().selectFrom('project_files').select('purged_at').where('id', '=', fileId).executeTakeFirstOrThrow()).purged_at;
    },
    async auditOf(action: string, fileId: number) {
      const rows = await db().selectFrom('audit_log').selectAll().where('action', '=', action).where('object_id', '=', String(fileId)).execute();
      return rows.map((r) => ({ ...r, details: JSON.parse(r.details ?? '{}') as Record<string, unknown> }));
    },
  };
}

describe.each(dialects())('purging deleted files on %s', (dialect) => {
  let server: TestServer;
  let company: CompanyRow;
  let token: string;
  let scratch: string;
  /** How far this server's clock is ahead of the real one. */
  let ahead = 0;
  const p = portal(() => server);

  beforeAll(async () => {
    server = await startTestServer(dialect, {}, { jobs: true, clock: () => Date.now() + ahead });
    company = await makeCompany(server.services);
    token = await login(server.api, (await makeUser(server.services, { company })).username, PASSWORD);
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-purge-'));
  });
  afterAll(async () => {
    await server.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  /** Moves the clock past the retention and runs what the periodic sweep queues, through the job queue. */
  async function afterRetention(...fileIds: number[]): Promise<void> {
    ahead += 31 * DAY_MS;
    expect(await server.services.purge.schedule()).toBe(true);
    await until(async () => (await Promise.all(fileIds.map((id) => p.purgedAt(id)))).every((at) => at !== null));
  }

  it('keeps a recently deleted file’s bytes and removes them, entries and all, once the retention has passed', async () => {
    const project = await makeProject(server.services, company);
    const kept = await p.archive(token, project.id, scratch);
    const deleted = await p.archive(token, project.id, scratch);
    await p.drawn(kept);
    await p.drawn(deleted);
    const keys = await p.keysOf(deleted);
    // The upload and its extracted entries, each an object of its own.
    expect(keys.filter((k) => k.startsWith(`entries/${deleted}/`)).length).toBe(2);
    await p.deleteFile(token, deleted);

    // Deleted moments ago: nothing is due, and a run finds nothing either.
    expect(await server.services.purge.schedule()).toBe(false);
    expect(await server.services.purge.purgeDue()).toMatchObject({ files: 0, deliveries: 0, bytes: 0 });
    for (const key of keys) expect(p.stored()).toContain(key);

    const keptKeys = await p.keysOf(kept);
    await afterRetention(deleted);
    const stored = p.stored();
    for (const key of keys) expect(stored).not.toContain(key);
    for (const key of keptKeys) expect(stored).toContain(key);
    // The row stays, deleted and marked purged; what only pointed at the bytes is gone.
    const row = await server.services.handle.db.selectFrom('project_files').selectAll().where('id', '=', deleted).executeTakeFirstOrThrow();
    expect(row.deleted_at).not.toBeNull();
    expect(await server.services.handle.db.selectFrom('file_entries').select('id').where('file_id', '=', deleted).execute()).toEqual([]);
    const [audit, ...more] = await p.auditOf('file.purged', deleted);
    expect(more).toEqual([]);
    expect(audit).toMatchObject({ actor_name: 'retention', company_id: company.id, object_type: 'file' });
    expect(audit!.details).toMatchObject({ name: 'export.zip', project_id: project.id, deleted_at: row.deleted_at, objects: keys.length });
    expect(audit!.details.bytes).toBeGreaterThan(CT.length + MR.length);
    // The live file is untouched and still downloads.
    expect((await download(server.api, token, kept)).status).toBe(200);

    // A second run finds nothing more to do, and writes no second row.
    expect(await server.services.purge.purgeDue()).toMatchObject({ files: 0, bytes: 0 });
    expect(await p.auditOf('file.purged', deleted)).toHaveLength(1);
  });

  it('purges a deleted delivery’s files and bundles', async () => {
    const project = await makeProject(server.services, company);
    const delivery = await p.delivery(token, project.id);
    const pictures = await p.drawn(delivery);
    const keys = await p.keysOf(delivery);
    expect(keys.filter((k) => k.startsWith('uploads/')).length).toBe(2);
    await p.deleteFile(token, delivery);
    for (const key of keys) expect(p.stored()).toContain(key);

    await afterRetention(delivery);
    const stored = p.stored();
    for (const key of keys) expect(stored).not.toContain(key);
    const [audit] = await p.auditOf('delivery.purged', delivery);
    expect(audit!.details).toMatchObject({ name: 'CD export', project_id: project.id, bytes: CT.length + MR.length + pictures });
  });

  it('purges the files of a deleted project, whose rows are not marked deleted themselves', async () => {
    const project = await makeProject(server.services, company);
    const file = await p.archive(token, project.id, scratch);
    await p.drawn(file);
    const keys = await p.keysOf(file);
    expect((await call(`${server.api}/study-petitions-delete/${project.id}`, { method: 'PUT', token })).status).toBe(200);
    for (const key of keys) expect(p.stored()).toContain(key);

    await afterRetention(file);
    for (const key of keys) expect(p.stored()).not.toContain(key);
    const [audit] = await p.auditOf('file.purged', file);
    expect(audit!.details).toMatchObject({ project_deleted: true, project_id: project.id });
  });

  it('purge-deleted at the command line says what it freed, and refuses a bad --older-than', async () => {
    const project = await makeProject(server.services, company);
    const first = await upload(server.api, token, { name: 'one.dcm', data: CT }, project.id);
    const second = await upload(server.api, token, { name: 'two.dcm', data: MR }, project.id);
    const ids = [first.body.data[0].id as number, second.body.data[0].id as number];
    for (const id of ids) await waitProcessed(server.api, token, project.id, id);
    let pictures = 0;
    for (const id of ids) pictures += await p.drawn(id);
    const keys = (await Promise.all(ids.map((id) => p.keysOf(id)))).flat();
    for (const id of ids) await p.deleteFile(token, id);

    const cli = (flags: Parameters<typeof runCommand>[2]) =>
      runWithAuditContext({ actor: CLI_ACTOR, ip: null, userAgent: 'admin command line' }, () => runCommand(server.services, 'purge-deleted', flags));
    // The clock of this server is past the retention already (the tests above moved it).
    expect(await cli({ 'older-than': '200' })).toBe('Nothing to purge: no deleted file or delivery (deleted more than 200 days ago) still holds stored bytes.');
    await expect(cli({ 'older-than': 'soon' })).rejects.toThrow('--older-than must be a whole number of days, 0 or more (0: every deleted file)');
    await expect(cli({ 'older-than': '-1' })).rejects.toThrow('--older-than must be a whole number of days');
    for (const key of keys) expect(p.stored()).toContain(key);

    const bytes = CT.length + MR.length + pictures;
    expect(await cli({ 'older-than': '0' })).toBe(
      `Purged 2 deleted files, freeing ${(bytes / 1000).toFixed(1)} KB (${bytes.toLocaleString('en-US')} bytes); each is recorded in the audit trail.`,
    );
    for (const key of keys) expect(p.stored()).not.toContain(key);
    for (const id of ids) expect((await p.auditOf('file.purged', id))[0]).toMatchObject({ actor_name: 'cli' });
  });

  it('leaves a file whose processing was cancelled moments ago for a later run', async () => {
    const project = await makeProject(server.services, company);
    const sent = await upload(server.api, token, { name: 'busy.dcm', data: CT }, project.id);
    const id = sent.body.data[0].id as number;
    await waitProcessed(server.api, token, project.id, id);
    // Its thumbnails drawn first: a picture stored after keysOf would be freed with the file, unlisted.
    const bytes = CT.length + (await p.drawn(id));
    const keys = await p.keysOf(id);
    await p.deleteFile(token, id);
    // As if the deletion had cancelled its job while a worker was running it: that worker notices
    // only at its next lease renewal, and may write entries until then.
    const at = new Date(Date.now() + ahead).toISOString();
    await server.services.handle.db.updateTable('jobs').set({ status: 'cancelled', updated_at: at }).where('subject', '=', `files/${id}`).execute();
    expect(await server.services.purge.purgeDue({ olderThanMs: 0 })).toMatchObject({ files: 0, deferred: 1 });
    for (const key of keys) expect(p.stored()).toContain(key);
    ahead += server.config.processing.leaseMs + 1000;
    expect(await server.services.purge.purgeDue({ olderThanMs: 0 })).toMatchObject({ files: 1, deferred: 0, bytes });
    for (const key of keys) expect(p.stored()).not.toContain(key);
  });

  it('npm run admin -- purge-deleted runs against the same database', async () => {
    const project = await makeProject(server.services, company);
    const sent = await upload(server.api, token, { name: 'three.dcm', data: CT }, project.id);
    const id = sent.body.data[0].id as number;
    await waitProcessed(server.api, token, project.id, id);
    const bytes = CT.length + (await p.drawn(id));
    const keys = await p.keysOf(id);
    await p.deleteFile(token, id);
    // The server's own storage settings: under the S3 pass, its bucket.
    const s3 = server.config.s3;
    const storage = s3
      ? { S3_BUCKET: s3.bucket, S3_ENDPOINT: s3.endpoint, S3_REGION: s3.region, S3_FORCE_PATH_STYLE: String(s3.forcePathStyle), S3_ACCESS_KEY_ID: s3.credentials?.accessKeyId, S3_SECRET_ACCESS_KEY: s3.credentials?.secretAccessKey }
      : {};
    const env = { DATA_DIR: server.database.dataDir, DATABASE_URL: server.database.databaseUrl, DELETED_RETENTION_DAYS: '0', ...storage };
    const refused = await runCli(['purge-deleted', '--older-than', '1.5'], env);
    expect(refused).toMatchObject({ code: 1 });
    expect(refused.stderr).toContain('Error: --older-than must be a whole number of days');
    const purged = await runCli(['purge-deleted'], env);
    expect(purged.stderr).toBe('');
    expect(purged).toMatchObject({ code: 0 });
    expect(purged.stdout.trim()).toBe(`Purged 1 deleted file, freeing ${(bytes / 1000).toFixed(1)} KB (${bytes.toLocaleString('en-US')} bytes); each is recorded in the audit trail.`);
    expect(await p.purgedAt(id)).not.toBeNull();
    for (const key of keys) expect(p.stored()).not.toContain(key);
  });
});

describe.each(dialects())('with DELETED_RETENTION_DAYS=0 on %s', (dialect) => {
  let server: TestServer;
  let company: CompanyRow;
  let token: string;
  const p = portal(() => server);

  beforeAll(async () => {
    server = await startTestServer(dialect, { DELETED_RETENTION_DAYS: '0' }, { jobs: true });
    company = await makeCompany(server.services);
    token = await login(server.api, (await makeUser(server.services, { company })).username, PASSWORD);
  });
  afterAll(() => server.close());

  it('a deletion queues the purge, which removes the bytes at once', async () => {
    const project = await makeProject(server.services, company);
    const sent = await upload(server.api, token, { name: 'now.dcm', data: CT }, project.id);
    const id = sent.body.data[0].id as number;
    await waitProcessed(server.api, token, project.id, id);
    await p.drawn(id);
    const keys = await p.keysOf(id);
    await p.deleteFile(token, id);
    await until(async () => (await p.purgedAt(id)) !== null);
    for (const key of keys) expect(p.stored()).not.toContain(key);
    const [deleted] = await p.auditOf('file.deleted', id);
    const [purged] = await p.auditOf('file.purged', id);
    expect(purged!.seq).toBeGreaterThan(deleted!.seq);
  });
});
