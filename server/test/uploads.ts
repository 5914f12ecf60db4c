// Upload helpers and the checks that nothing is left behind by a refused or broken upload.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { request as httpRequest, type ClientRequest } from 'node:http';
import path from 'node:path';
import type { Db } from '../src/db/database.js';
import { call, type Answer } from './http.js';
import { bucketContents } from './storage-registry.js';

export const FIXTURES = path.resolve(import.meta.dirname, 'fixtures');
export const dicomFixture = (name: string) => fs.readFileSync(path.join(FIXTURES, 'dicom', name));

export function sha256(data: Buffer | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

export async function upload(
  api: string,
  token: string,
  file: { name: string; data: Buffer | Uint8Array },
  projectId: number | string | undefined,
  order: 'field-first' | 'file-first' = 'field-first',
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read JSON answers loosely
): Promise<Answer<any>> {
  const form = new FormData();
  const blob = new Blob([new Uint8Array(file.data)]);
  if (order === 'field-first' && projectId !== undefined) form.append('studypetitionid', String(projectId));
  form.append('file', blob, file.name);
  if (order === 'file-first' && projectId !== undefined) form.append('studypetitionid', String(projectId));
  const response = await fetch(`${api}/upload-study-petitions-files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // leave as text
  }
  return { status: response.status, headers: response.headers, body };
}

export async function download(api: string, token: string, fileId: number, headers: Record<string, string> = {}) {
  const response = await fetch(`${api}/download-study-petitions-files/${fileId}`, {
    headers: { authorization: `Bearer ${token}`, ...headers },
  });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

export function listFiles(api: string, token: string, projectId: number) {
  return call(`${api}/study-petitions-files?study_petition_id=${projectId}`, { token });
}

/** Each file a zip holds (unpacked by bsdtar in a folder under `scratch`), by its path inside, with its SHA-256. */
export function zipFileHashes(zipPath: string, scratch: string): Record<string, string> {
  const unpacked = fs.mkdtempSync(path.join(scratch, 'unzip-'));
  execFileSync('bsdtar', ['-xf', zipPath, '-C', unpacked]);
  const listed = fs.readdirSync(unpacked, { recursive: true, withFileTypes: true }).filter((d) => d.isFile());
  return Object.fromEntries(listed.map((d) => [path.relative(unpacked, path.join(d.parentPath, d.name)), sha256(fs.readFileSync(path.join(d.parentPath, d.name)))]));
}

/** Polls the project's list, as the web app does, until the file's processing has finished; its row. */
export async function waitProcessed(api: string, token: string, projectId: number, fileId: number) {
  for (let i = 0; i < 600; i += 1) {
    const row = (await listFiles(api, token, projectId)).body.data.find((f: { id: number }) => f.id === fileId);
    if (row.processing.status === 'ready' || row.processing.status === 'failed') return row;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('processing did not finish');
}

/** The status and body of the answer to a raw request, or no status when the connection failed. */
export function answerOf(request: ClientRequest): Promise<{ status: number | undefined; body: string }> {
  return new Promise((resolve) => {
    request.on('response', (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode, body }));
      res.on('error', () => resolve({ status: res.statusCode, body }));
    });
    request.on('error', () => resolve({ status: undefined, body: '' }));
  });
}

/**
 * Every regular file under the storage root, relative to it (temp files under `.tmp/`). For a
 * server storing in S3: every key in its bucket, and its leftovers (see bucketContents).
 */
export function storedFiles(dataDir: string): string[] {
  const inBucket = bucketContents(dataDir);
  if (inBucket !== null) return inBucket;
  const root = path.join(dataDir, 'objects');
  if (!fs.existsSync(root)) return [];
  return fs.readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => path.relative(root, path.join(d.parentPath, d.name)));
}

/**
 * Waits (up to 30 s) for the thumbnail jobs queued so far to end: a processed file's thumbnails are
 * drawn by a job of their own once it is ready, each picture stored a moment before its row.
 */
export async function thumbnailsDrawn(db: Db): Promise<void> {
  for (let i = 0; i < 300; i += 1) {
    const drawing = await db.selectFrom('jobs').select('id').where('name', '=', 'render-thumbnails').where('status', 'in', ['queued', 'running']).limit(1).executeTakeFirst();
    if (!drawing) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Waits (up to 30 s) until no job is queued or running: whatever the events so far queued (mails,
 * webhooks, thumbnails) has ended, so what was not sent by then never will be. An announcer waits
 * for its reactions, and a job ends after announcing, so a job queued by a reaction is seen.
 */
export async function queueDrained(db: Db): Promise<void> {
  for (let i = 0; i < 300; i += 1) {
    const busy = await db.selectFrom('jobs').select('id').where('status', 'in', ['queued', 'running']).limit(1).executeTakeFirst();
    if (!busy) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('jobs still queued or running after 30 s');
}

/**
 * Bytes on disk match the visible rows exactly: no temp files, no orphans, no pending records.
 * `stopped`: no process runs the queue any more (its server was stopped), so what is on disk is
 * final and a thumbnail job left queued is not waited for: it would never run, and the wait its 30 s.
 */
export async function expectNoLeftovers(db: Db, dataDir: string, opts: { stopped?: boolean } = {}): Promise<void> {
  if (!opts.stopped) await thumbnailsDrawn(db);
  const rows = [
    ...(await db.selectFrom('project_files').select('storage_key').execute()),
    // A processed file's series thumbnails are objects of their own, named by their rows.
    ...(await db.selectFrom('series_thumbnails').select('storage_key').where('storage_key', 'is not', null).execute()),
  ];
  const pending = await db.selectFrom('pending_uploads').selectAll().execute();
  const onDisk = storedFiles(dataDir).sort();
  const expected = rows.map((r) => r.storage_key!).sort();
  if (JSON.stringify(onDisk) !== JSON.stringify(expected) || pending.length > 0) {
    throw new Error(`leftovers: on disk ${JSON.stringify(onDisk)}, rows ${JSON.stringify(expected)}, pending ${pending.length}`);
  }
}

/** Writes `members` into a scratch folder, runs a real archiver there by shell, answers the output. */
export function makeArchive(dir: string, members: Record<string, Buffer>, command: string, output: string): Buffer {
  const src = fs.mkdtempSync(path.join(dir, 'src-'));
  for (const [member, data] of Object.entries(members)) {
    fs.mkdirSync(path.dirname(path.join(src, member)), { recursive: true });
    fs.writeFileSync(path.join(src, member), data);
  }
  execFileSync('sh', ['-c', command], { cwd: src });
  return fs.readFileSync(path.join(src, output));
}

/**
 * A raw multipart POST to the upload call whose body the test writes itself, byte by byte: for
 * stalls, cuts and bodies that lie about their length, which fetch cannot send.
 */
export function openUploadRequest(api: string, token: string, boundary: string, contentLength: number): ClientRequest {
  const url = new URL(`${api}/upload-study-petitions-files`);
  return httpRequest({
    host: url.hostname,
    port: url.port,
    path: url.pathname,
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': String(contentLength),
    },
  });
}
