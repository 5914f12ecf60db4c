// Moving a single-machine install (SQLite and files under DATA_DIR) into PostgreSQL and another
// storage with `npm run admin -- move-install`, as an operator would: the old server populated
// through its API and stopped, the move run as a process (interrupted, damaged, refused) into
// a filesystem DATA_DIR and into an S3 bucket (s3rver on loopback), and
// the server started on the target answering as the old one did.
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CreateMultipartUploadCommand, GetObjectCommand, PutObjectCommand, UploadPartCommand, type S3Client } from '@aws-sdk/client-s3';
import { TAR_END, tarMemberHeader, tarPadding } from '@portal/contract';
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/database.js';
import { migrateTo } from '../src/db/migrate.js';
import { SecretBox } from '../src/sso/secret-box.js';
import { createS3Client } from '../src/storage/s3-client.js';
import { createTestDatabase, dialects, type TestDatabase } from './databases.js';
import { call, login } from './http.js';
import { runCli } from './admin-cli.js';
import { startServerProcess, type ServerProcess } from './processes.js';
import { startTestS3, type TestS3 } from './s3.js';
import { bucketContents, registerBucket } from './storage-registry.js';
import { createUpload, encodeMetadata } from './tus.js';
import { dicomFixture, download, makeArchive, storedFiles, upload } from './uploads.js';

const PASSWORD = 'Rad!ology-2024';
const SSO_SECRET = 'client-secret-of-radiology-west';

interface Before {
  files: unknown[];
  downloads: Map<number, Buffer>;
  entryPath: string;
  entryBytes: Buffer;
  zipId: number;
  projectId: number;
  token: string;
  /** Each series' thumbnail as the old server answered it (issue 34): path under the API and bytes. */
  thumbnails: Map<string, Buffer>;
}

const stop = async (server: ServerProcess) => {
  server.child.kill('SIGTERM');
  await server.waitForExit();
};

/** The storage key of the file named `name` in an install's SQLite database. */
function keyOf(dataDir: string, name: string): string {
  const db = new SQLite(path.join(dataDir, 'portal.sqlite'), { readonly: true });
  try {
    return (db.prepare('select storage_key from project_files where file = ?').get(name) as { storage_key: string }).storage_key;
  } finally {
    db.close();
  }
}

/** The stored object of the file named `name` in an install's DATA_DIR. */
const objectOf = (dataDir: string, name: string) => path.join(dataDir, 'objects', ...keyOf(dataDir, name).split('/'));

async function rowCounts(databaseUrl: string | undefined, dataDir: string): Promise<Record<string, number>> {
  const handle = openDatabase({ databaseUrl, dataDir });
  try {
    const counts: Record<string, number> = {};
    for (const table of ['companies', 'users', 'sessions', 'projects', 'project_files', 'deliveries', 'delivery_files', 'file_entries', 'jobs', 'audit_log'] as const) {
      const row = await handle.db.selectFrom(table).select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow();
      counts[table] = Number(row.n);
    }
    return counts;
  } finally {
    await handle.close();
  }
}

/** Every storage key the rows of a moved install point to, each once, sorted. */
async function keysRowsPointTo(target: TestDatabase): Promise<string[]> {
  const handle = openDatabase({ databaseUrl: target.databaseUrl, dataDir: target.dataDir });
  try {
    const db = handle.db;
    const keys = [
      ...(await db.selectFrom('project_files').select('storage_key').where('kind', '!=', 'folder').execute()).map((r) => r.storage_key),
      ...(await db.selectFrom('delivery_files').select('storage_key').execute()).map((r) => r.storage_key),
      ...(await db.selectFrom('file_entries').select('storage_key').where('storage_key', 'is not', null).execute()).map((r) => r.storage_key!),
      ...(await db.selectFrom('series_thumbnails').select('storage_key').where('storage_key', 'is not', null).execute()).map((r) => r.storage_key!),
    ];
    return [...new Set(keys)].sort();
  } finally {
    await handle.close();
  }
}

// The target is PostgreSQL: with no PostgreSQL in this run there is nothing to move into.
describe.each(dialects().filter((d) => d === 'postgres'))('move-install into %s', () => {
  let scratch: string;
  let sourceDir: string;
  let oldServer: ServerProcess;
  let before: Before;
  let companyId: number;
  let projectKey: { projectId: number; key: string };
  let stopped: Promise<unknown> | undefined;
  /** Tests after the first want the old server stopped, as an operator would have it. */
  const stopOldServer = () => (stopped ??= stop(oldServer));
  const targets: TestDatabase[] = [];

  async function newTarget(): Promise<TestDatabase> {
    const target = await createTestDatabase('postgres');
    targets.push(target);
    return target;
  }
  const move = (target: TestDatabase, from: string, ...args: string[]) =>
    runCli(['move-install', '--from', from, ...args], { DATABASE_URL: target.databaseUrl, DATA_DIR: target.dataDir });

  async function waitUntilProcessed(api: string, token: string, projectId: number): Promise<unknown[]> {
    for (let i = 0; i < 600; i += 1) {
      const files: { processing: { status: string } }[] = (await call(`${api}/study-petitions-files?study_petition_id=${projectId}`, { token })).body.data;
      if (files.every((f) => f.processing.status === 'ready' || f.processing.status === 'failed')) return files;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('processing did not finish');
  }

  /** A server started on a moved install answers as the old one did, and numbers new rows after the copied ones. */
  async function expectServedAsBefore(env: Record<string, string | undefined>): Promise<void> {
    const server = await startServerProcess(env);
    try {
      const api = `${server.url}/api/v1`;
      // The session opened on the old server still works; so does the old password.
      expect((await call(`${api}/me`, { token: before.token })).status).toBe(200);
      const token = await login(api, 'alice', PASSWORD);
      const files = (await call(`${api}/study-petitions-files?study_petition_id=${before.projectId}`, { token })).body.data;
      expect(files).toEqual(before.files);
      // Every upload as sent, and the delivery as its zip.
      for (const [id, bytes] of before.downloads) expect((await download(api, token, id)).bytes.equals(bytes), `file ${id}`).toBe(true);
      const entries: { id: number; path: string }[] = (await call(`${api}/study-petitions-files/${before.zipId}/contents`, { token })).body.data.entries;
      const entry = entries.find((e) => e.path === before.entryPath)!;
      const entryBytes = Buffer.from(await (await fetch(`${api}/study-petitions-files/${before.zipId}/contents/${entry.id}/download`, { headers: { authorization: `Bearer ${token}` } })).arrayBuffer());
      expect(entryBytes.equals(before.entryBytes)).toBe(true);
      for (const [at, bytes] of before.thumbnails) {
        const answer = await fetch(`${api}${at}`, { headers: { authorization: `Bearer ${token}` } });
        expect(Buffer.from(await answer.arrayBuffer()).equals(bytes), at).toBe(true);
      }
      const added = await upload(api, token, { name: 'after-the-move.dcm', data: dicomFixture('s13_US_rgb_bigendian.dcm') }, before.projectId);
      expect(added.status).toBe(201);
      expect(added.body.data[0].id).toBeGreaterThan(Math.max(...before.downloads.keys()));
    } finally {
      await stop(server);
    }
  }

  beforeAll(async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-move-'));
    sourceDir = path.join(scratch, 'old');
    const env = { DATA_DIR: sourceDir, DATABASE_URL: undefined };
    const company = await runCli(['create-company', '--name', 'Radiology West'], env);
    expect(company.code).toBe(0);
    const user = await runCli(
      ['create-user', '--company-id', company.stdout.trim(), '--username', 'alice', '--password-stdin', '--firstname', 'Alice', '--lastname', 'Moreau', '--role', 'CompanyAdmin'],
      env,
      `${PASSWORD}\n`,
    );
    expect(user.code).toBe(0);
    const admins = await runCli(['create-company', '--name', 'Administration'], env);
    const admin = await runCli(
      ['create-user', '--company-id', admins.stdout.trim(), '--username', 'root', '--password-stdin', '--firstname', 'Sys', '--lastname', 'Admin', '--role', 'SysAdmin'],
      env,
      `${PASSWORD}\n`,
    );
    expect(admin.code).toBe(0);
    companyId = Number(company.stdout.trim());

    oldServer = await startServerProcess(env);
    const api = `${oldServer.url}/api/v1`;
    const token = await login(api, 'alice', PASSWORD);
    // A client secret sealed with the old install's key file (single sign-on stays off: no provider here).
    const sso = await call(`${api}/admin/companies/${companyId}/sso`, {
      method: 'PUT',
      token: await login(api, 'root', PASSWORD),
      json: { enabled: false, issuer: 'https://login.example.org/realms/west', client_id: 'portal', client_secret: SSO_SECRET, password_login_allowed: true, auto_create_users: false },
    });
    expect(sso.status).toBe(200);
    const project = await call(`${api}/study-petitions`, { token, json: { name: 'Knee MRI follow-up' } });
    expect(project.status).toBe(201);
    const projectId: number = project.body.data[0].id;
    // A project key, sealed with the same key file as the client secret.
    const key = await call(`${api}/study-petitions/${projectId}/deidentification/key`, { token });
    expect(key.status).toBe(200);
    projectKey = { projectId, key: key.body.data[0].key };

    const send = async (name: string, data: Buffer) => {
      const answer = await upload(api, token, { name, data }, projectId);
      expect(answer.status).toBe(201);
      return answer.body.data[0].id as number;
    };
    await send('s01_CT_small.dcm', dicomFixture('s01_CT_small.dcm'));
    const members = { IM1: dicomFixture('s03_CT_series5N_2062.dcm'), IM2: dicomFixture('s10_MR_small_implicit.dcm'), 'notes.txt': Buffer.from('Series sent by the partner site.\n') };
    // Deflated members become objects of their own; stored ones are read in place from the zip.
    const zipId = await send('series-deflated.zip', makeArchive(scratch, members, 'zip -q -9 out.zip IM1 IM2 notes.txt', 'out.zip'));
    await send('series-stored.zip', makeArchive(scratch, members, 'zip -q -0 out.zip IM1 IM2 notes.txt', 'out.zip'));
    const deleted = await send('wrong-patient.dcm', dicomFixture('s04_CT_series5N_2392.dcm'));
    expect((await call(`${api}/study-petitions-files-delete/${deleted}`, { method: 'PUT', token })).status).toBe(200);

    const delivery = await call(`${api}/deliveries`, { token, json: { studypetitionid: projectId, name: 'CD export 2024-03-01' } });
    const deliveryId: number = delivery.body.data[0].id;
    for (const [relativePath, data] of [['DICOM/IM1', dicomFixture('s05_CT_series5N_2693.dcm')], ['README.TXT', Buffer.from('Open DICOMDIR with any viewer.\n')]] as const) {
      const metadata = encodeMetadata({ filename: relativePath.split('/').pop()!, delivery: String(deliveryId), relativePath });
      expect((await createUpload(api, token, { size: data.length, body: data, metadata })).status).toBe(201);
    }
    // Two more in a tar bundle: one object holding both, each file a range of it.
    const bundled = [
      { path: 'DICOM/IM2', data: dicomFixture('s06_CT_series5N_3023.dcm') },
      { path: 'DICOM/IM3', data: dicomFixture('s07_CT_series5N_3353.dcm') },
    ];
    const bundle = Buffer.concat([
      ...bundled.flatMap(({ path: p, data }) => [tarMemberHeader({ path: p, size: data.length, mtimeMs: 0 }), data, tarPadding(data.length)]),
      TAR_END,
    ]);
    const bundleMeta = encodeMetadata({ filename: 'bundle-1.tar', delivery: String(deliveryId), bundle: 'tar' });
    expect((await createUpload(api, token, { size: bundle.length, body: bundle, metadata: bundleMeta })).status).toBe(201);
    expect((await call(`${api}/deliveries/${deliveryId}/complete`, { method: 'POST', token })).status).toBeLessThan(300);

    // Sent whole through tus: its record stays after it became a file, but it is no unfinished upload.
    const whole = dicomFixture('s10_MR_small_implicit.dcm');
    const sentWhole = await createUpload(api, token, { size: whole.length, body: whole, metadata: encodeMetadata({ filename: 'whole.dcm', studypetitionid: String(projectId) }) });
    expect(sentWhole.headers.get('portal-file-id')).toMatch(/^\d+$/);

    // Half sent when the server stops: its sender starts it again on the new portal.
    const partial = dicomFixture('s21_RTDOSE_implicit.dcm');
    const unfinished = await createUpload(api, token, { size: partial.length, body: partial.subarray(0, 1000), metadata: encodeMetadata({ filename: 'dose.dcm', studypetitionid: String(projectId) }) });
    expect(unfinished.status).toBe(201);

    const files = await waitUntilProcessed(api, token, projectId);
    const downloads = new Map<number, Buffer>();
    for (const file of files as { id: number }[]) downloads.set(file.id, (await download(api, token, file.id)).bytes);
    const entries: { id: number; path: string }[] = (await call(`${api}/study-petitions-files/${zipId}/contents`, { token })).body.data.entries;
    const entry = entries.find((e) => e.path === 'IM2')!;
    const entryBytes = Buffer.from(await (await fetch(`${api}/study-petitions-files/${zipId}/contents/${entry.id}/download`, { headers: { authorization: `Bearer ${token}` } })).arrayBuffer());
    expect(entryBytes.equals(members.IM2)).toBe(true);
    // Each series' thumbnail, once made: the move copies them and their pictures.
    const thumbnails = new Map<string, Buffer>();
    const studies: { study_instance_uid: string; series: { series_instance_uid: string }[] }[] = (await call(`${api}/study-petitions/${projectId}/studies?per_page=100`, { token })).body.data;
    for (const study of studies) {
      for (const series of study.series) {
        const at = `/study-petitions/${projectId}/studies/${study.study_instance_uid}/series/${series.series_instance_uid}/thumbnail`;
        for (let i = 0; i < 600; i += 1) {
          const answer = await fetch(`${api}${at}`, { headers: { authorization: `Bearer ${token}` } });
          const bytes = Buffer.from(await answer.arrayBuffer());
          if (answer.status === 200) thumbnails.set(at, bytes);
          if (answer.status !== 202) break;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    }
    expect(thumbnails.size).toBeGreaterThanOrEqual(3);
    before = { files, downloads, entryPath: entry.path, entryBytes, zipId, projectId, token, thumbnails };
  }, 240_000);

  afterAll(async () => {
    await stopOldServer();
    for (const target of targets) await target.drop();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('refuses while the old server has the install open, and changes nothing', async () => {
    const target = await newTarget();
    const refused = await move(target, sourceDir);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`Error: The install in ${sourceDir} is in use: a server or worker has its database open. Stop the server and every worker`);
    // Not even the target's migrations ran.
    await expect(rowCounts(target.databaseUrl, target.dataDir)).rejects.toThrow(/does not exist/);
    await stopOldServer();
  }, 60_000);

  it('names an object damaged on disk, and copies no row', async () => {
    await stopOldServer();
    const damaged = path.join(scratch, 'damaged');
    fs.cpSync(sourceDir, damaged, { recursive: true });
    const object = objectOf(damaged, 's01_CT_small.dcm');
    const bytes = fs.readFileSync(object);
    bytes[bytes.length - 10]! ^= 0xff;
    fs.writeFileSync(object, bytes);

    const target = await newTarget();
    const result = await move(target, damaged);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Error: 1 stored object of the old install is not as its database records it, so the database was not copied:\n  - file “s01_CT_small.dcm”');
    expect(result.stderr).toMatch(/file “s01_CT_small\.dcm” \(file \d+\): its stored bytes in the old install do not match the SHA-256 the database records for it/);
    expect((await rowCounts(target.databaseUrl, target.dataDir)).users).toBe(0);
  }, 120_000);

  it('refuses a target database that holds another install', async () => {
    await stopOldServer();
    const target = await newTarget();
    expect((await runCli(['create-company', '--name', 'Someone else'], { DATABASE_URL: target.databaseUrl, DATA_DIR: target.dataDir })).code).toBe(0);
    const result = await move(target, sourceDir);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('The target database holds a different install');
    expect((await rowCounts(target.databaseUrl, target.dataDir)).users).toBe(0);
  }, 60_000);

  it('refuses a target that is not PostgreSQL, and an old install of an older version', async () => {
    await stopOldServer();
    const sqliteTarget = await runCli(['move-install', '--from', sourceDir], { DATA_DIR: path.join(scratch, 'elsewhere'), DATABASE_URL: undefined });
    expect(sqliteTarget.code).toBe(1);
    expect(sqliteTarget.stderr).toBe('Error: The target must be a PostgreSQL database: set DATABASE_URL (and the storage settings) as the server will run with them, then run the move again.\n');

    const olderDir = path.join(scratch, 'older');
    const older = openDatabase({ databaseUrl: undefined, dataDir: olderDir });
    await migrateTo(older, '012-download-links');
    await older.close();
    const target = await newTarget();
    const result = await move(target, olderDir);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`Error: The install in ${olderDir} was last run by an older version of the portal. Start it once with this version`);
  }, 60_000);

  it('refuses an SSO_SECRET_KEY that did not seal the old install\'s client secrets, before copying anything', async () => {
    await stopOldServer();
    const target = await newTarget();
    const result = await runCli(['move-install', '--from', sourceDir], {
      DATABASE_URL: target.databaseUrl,
      DATA_DIR: target.dataDir,
      SSO_SECRET_KEY: randomBytes(32).toString('base64'),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Error: SSO_SECRET_KEY is not the key the old install sealed its single sign-on secrets with (the one in sso-secret.key of the old DATA_DIR)');
    expect(fs.existsSync(path.join(target.dataDir, 'objects'))).toBe(false);
    expect((await rowCounts(target.databaseUrl, target.dataDir)).users).toBe(0);
  }, 60_000);

  describe('a move interrupted, resumed and checked', () => {
    let target: TestDatabase;
    beforeAll(async () => {
      await stopOldServer();
      target = await newTarget();
    });

    it('stops after two objects and goes on where it stopped, redoing a half-copied object', async () => {
      const first = await move(target, sourceDir, '--max-objects', '2');
      expect(first.code).toBe(1);
      expect(first.stderr).toContain('Stopped after copying 2 objects, as --max-objects asked. Run the same command again to go on');
      expect((await rowCounts(target.databaseUrl, target.dataDir)).users).toBe(0);

      // One copied object cut short, as a copy cut off by a crash could leave it, and a temp file.
      const objects = fs.readdirSync(path.join(target.dataDir, 'objects'), { recursive: true, withFileTypes: true }).filter((d) => d.isFile());
      expect(objects).toHaveLength(2);
      const victim = path.join(objects[0]!.parentPath, objects[0]!.name);
      fs.truncateSync(victim, 100);
      fs.mkdirSync(path.join(target.dataDir, 'objects', '.tmp'), { recursive: true });
      fs.writeFileSync(path.join(target.dataDir, 'objects', '.tmp', 'left.part'), 'partial');

      const second = await move(target, sourceDir);
      expect(second.stderr).toBe('');
      expect(second.code).toBe(0);
      expect(second.stdout).toContain('Bringing the target database up to date');
      expect(second.stdout).toContain('Copying the database…\n  companies: 2 rows\n  company_sso: 1 row\n  users: 2 rows\n');
      expect(second.stdout).toMatch(/Objects: \d+ \([\d.]+ KB\): \d+ copied in this run, 1 already there, 1 half-copied one copied again\. Each one read back from the target with the SHA-256 the database records, as did [1-9]\d* extracted entries stored inside them\./);
      expect(second.stdout).toContain(`The install in ${sourceDir} was moved, and every object checked out.`);
      expect(second.stdout).toContain('  Not moved: 1 unfinished resumable upload (its sender starts it again).');
      expect(fs.existsSync(path.join(target.dataDir, 'objects', '.tmp', 'left.part'))).toBe(false);
      expect(second.stdout).toContain('The single sign-on key (sso-secret.key) was copied into the new DATA_DIR. Several API nodes must share it');

      // Once more: nothing to copy, nothing twice.
      const third = await move(target, sourceDir);
      expect(third.code).toBe(0);
      expect(third.stdout).toMatch(/Database: [\d,]+ rows in 31 tables \(all already there from an earlier run\)\./);
      expect(third.stdout).toMatch(/Objects: (\d+) \([\d.]+ KB\): 0 copied in this run, \1 already there\./);
      expect(await rowCounts(target.databaseUrl, target.dataDir)).toEqual(await rowCounts(undefined, sourceDir));
    }, 180_000);

    it('leaves a target the server runs on as the old one ran', async () => {
      const env = { DATABASE_URL: target.databaseUrl, DATA_DIR: target.dataDir };
      await expectServedAsBefore(env);
      // The company's client secret still opens with the key the target now has.
      const handle = openDatabase({ databaseUrl: target.databaseUrl, dataDir: target.dataDir });
      try {
        const row = await handle.db.selectFrom('company_sso').selectAll().where('company_id', '=', companyId).executeTakeFirstOrThrow();
        expect(new SecretBox({ key: undefined, dataDir: target.dataDir }).open(row.client_secret_enc!, companyId)).toBe(SSO_SECRET);
        // And so does the project's de-identification key: its pseudonyms stay the same after the move.
        const sealed = await handle.db.selectFrom('project_keys').selectAll().where('project_id', '=', projectKey.projectId).executeTakeFirstOrThrow();
        expect(new SecretBox({ key: undefined, dataDir: target.dataDir }).openBound(sealed.key_sealed, `project-key:${projectKey.projectId}`)).toBe(projectKey.key);
      } finally {
        await handle.close();
      }
      const audit = await runCli(['verify-audit'], env);
      expect(audit.stdout).toMatch(/The audit trail is intact: \d+ rows checked\./);
      expect(audit.code).toBe(0);
      const objects = await runCli(['verify-objects'], env);
      expect(objects.stdout).toMatch(/Every stored object checked out: \d+ objects/);
      expect(objects.code).toBe(0);

      // verify-objects is how a restore is checked: a damaged object is named.
      const object = objectOf(sourceDir, 'series-stored.zip').replace(path.join(sourceDir, 'objects'), path.join(target.dataDir, 'objects'));
      const bytes = fs.readFileSync(object);
      bytes[40]! ^= 0xff;
      fs.writeFileSync(object, bytes);
      const damaged = await runCli(['verify-objects'], env);
      expect(damaged.code).toBe(1);
      expect(damaged.stderr).toMatch(
        /^Error: 1 stored object is not as the database records it:\n {2}- file “series-stored\.zip” \(file \d+\): its stored bytes do not match the SHA-256 the database records for it\.\n$/,
      );
    }, 180_000);
  });

  describe('into an S3 bucket', () => {
    let s3: TestS3;
    let bucket: string;
    let target: TestDatabase;
    let env: Record<string, string | undefined>;
    let client: S3Client;
    const moveToBucket = (...args: string[]) => runCli(['move-install', '--from', sourceDir, ...args], env);
    const readObject = async (key: string) => Buffer.from(await (await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }))).Body!.transformToByteArray());
    /** Replaces an object's bytes with as many others, as a fault of the service or a careless hand would. */
    async function damageObject(key: string, at: number): Promise<void> {
      const bytes = await readObject(key);
      bytes[at]! ^= 0xff;
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: bytes }));
    }

    beforeAll(async () => {
      await stopOldServer();
      s3 = await startTestS3();
      bucket = await s3.createBucket();
      target = await newTarget();
      env = { DATABASE_URL: target.databaseUrl, DATA_DIR: target.dataDir, ...s3.env(bucket) };
      registerBucket(target.dataDir, { directory: s3.directory, bucket });
      client = createS3Client(s3.config(bucket, path.join(scratch, 's3-client-work')));
    });
    afterAll(async () => {
      client.destroy();
      await s3.close();
    });

    it('refuses a bucket it cannot use, before copying anything', async () => {
      const other = await newTarget();
      const result = await runCli(['move-install', '--from', sourceDir], { DATABASE_URL: other.databaseUrl, DATA_DIR: other.dataDir, ...s3.env('no-such-bucket') });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /^Error: Cannot use the S3 bucket "no-such-bucket" at http:\/\/127\.0\.0\.1:\d+: the bucket "no-such-bucket" does not exist: create it, or correct S3_BUCKET\. Nothing was moved\.\n$/,
      );
      expect((await rowCounts(other.databaseUrl, other.dataDir)).users).toBe(0);
    }, 60_000);

    it('stops after two objects and goes on without duplicates, redoing a damaged copy and dropping an unfinished upload', async () => {
      const first = await moveToBucket('--max-objects', '2');
      expect(first.code).toBe(1);
      expect(first.stderr).toContain('Stopped after copying 2 objects, as --max-objects asked. Run the same command again to go on');
      expect((await rowCounts(target.databaseUrl, target.dataDir)).users).toBe(0);
      const copied = bucketContents(target.dataDir)!;
      expect(copied).toHaveLength(2);

      // One copied object no longer as copied, and a multipart upload a crash cut off.
      const [victim] = copied as [string];
      const original = await readObject(victim);
      await damageObject(victim, 0);
      const cutOff = `uploads/${randomUUID()}`;
      const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: cutOff }));
      await client.send(new UploadPartCommand({ Bucket: bucket, Key: cutOff, UploadId, PartNumber: 1, Body: randomBytes(1000) }));
      expect(await s3.unfinishedUploads(bucket)).toHaveLength(1);

      const second = await moveToBucket();
      expect(second.stderr).toBe('');
      expect(second.code).toBe(0);
      expect(second.stdout).toMatch(/Objects: \d+ \([\d.]+ KB\): \d+ copied in this run, 1 already there, 1 half-copied one copied again\. Each one read back from the target with the SHA-256 the database records, as did [1-9]\d* extracted entries stored inside them\./);
      expect(second.stdout).toContain(`The install in ${sourceDir} was moved, and every object checked out.`);
      expect((await readObject(victim)).equals(original)).toBe(true);
      expect(await s3.unfinishedUploads(bucket)).toEqual([]);

      const third = await moveToBucket();
      expect(third.code).toBe(0);
      expect(third.stdout).toMatch(/Objects: (\d+) \([\d.]+ KB\): 0 copied in this run, \1 already there\./);
      expect(await rowCounts(target.databaseUrl, target.dataDir)).toEqual(await rowCounts(undefined, sourceDir));

      // The bucket holds the old install's objects, each once, and nothing no row points to; no
      // object, leftover or local copy is under the new DATA_DIR.
      const inBucket = bucketContents(target.dataDir)!.sort();
      expect(inBucket).toEqual(storedFiles(sourceDir).sort());
      expect(inBucket).toEqual(await keysRowsPointTo(target));
    }, 180_000);

    it('leaves a bucket the server runs on as the old one ran, and verify-objects names a damaged object in it', async () => {
      await expectServedAsBefore(env);
      const objects = await runCli(['verify-objects'], env);
      expect(objects.stdout).toMatch(/Every stored object checked out: \d+ objects/);
      expect(objects.code).toBe(0);

      await damageObject(keyOf(sourceDir, 'series-stored.zip'), 40);
      const damaged = await runCli(['verify-objects'], env);
      expect(damaged.code).toBe(1);
      expect(damaged.stderr).toMatch(
        /^Error: 1 stored object is not as the database records it:\n {2}- file “series-stored\.zip” \(file \d+\): its stored bytes do not match the SHA-256 the database records for it\.\n$/,
      );
    }, 180_000);
  });
});
