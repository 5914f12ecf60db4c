// The portal's three ways of receiving the same many small files, each timed end to end, from the
// first request until every row is 'ready': (a) one delivery (a folder as the web app sends it:
// its small files packed in tar bundles, each bundle one tus upload naming it, then its
// completion), (b) one multipart upload per file, (c) one stored zip.
import { closeSync, openSync, readSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { BUNDLE_METADATA_KEY, BUNDLE_METADATA_VALUE, bundleSize, planBundles, TAR_END, tarMemberHeader, tarPadding, type BundleMember } from '@portal/contract';
import { inPool, type FileSet } from './files-input.js';
import { jsonRequest, multipartFrame, streamRequest } from './upload-http.js';
import { cpuSeconds, peakRssBytes, stopChild, threadCpuSeconds } from './upload-process.js';
import { startPortal, type Portal } from './upload-portal.js';
import { WITH_CREATION_MAX_BYTES } from '../../web/src/features/upload/api/tus-chunk.js';
import { readChunkBytes } from './upload-tus.js';

export type PortalCase = 'delivery' | 'single' | 'zip';

export interface CaseResult {
  seconds: number;
  /** Of the upload alone (the last byte's answer), before processing caught up. */
  uploadSeconds: number;
  peakRssBytes: number;
  /** CPU time (user + system) the server used from the first request until all was ready. */
  serverCpuSeconds: number;
  /** The same for this benchmark's own process, the client (both run on the same cores). */
  clientCpuSeconds: number;
  /** The server's CPU time until the last file was answered, before processing caught up (the portal's cases). */
  sendCpuSeconds?: number;
}

export interface CaseOptions {
  /** Uploads (bundles, or files sent alone) in flight for the delivery; b always sends 4 at a time, as the issue measures it. */
  deliveryInFlight: number;
  singleInFlight: number;
}

export async function measurePortalCase(name: PortalCase, files: FileSet, dataDir: string, repoRoot: string, options: CaseOptions): Promise<CaseResult> {
  const portal = await startPortal(dataDir, repoRoot, Math.max(files.zip.bytes * 2, 1024 ** 3));
  try {
    const cpuBefore = await cpuSeconds(portal.child.pid);
    const threadsBefore = process.env.BENCH_THREADS ? await threadCpuSeconds(portal.child.pid) : undefined;
    const clientBefore = process.cpuUsage();
    const started = process.hrtime.bigint();
    const since = () => Number(process.hrtime.bigint() - started) / 1e9;
    let rows = 1;
    let instances = files.names.length;
    if (name === 'delivery') await sendDelivery(portal, files, options.deliveryInFlight);
    else if (name === 'zip') await sendMultipart(portal, files.zip.path, 'files.zip', 'application/zip', files.zip.bytes);
    else {
      rows = files.names.length;
      instances = 1;
      await inPool(files.names, options.singleInFlight, async (file) => {
        await sendSmallMultipart(portal, await readFile(path.join(files.dir, file)), file);
      });
    }
    const uploadSeconds = since();
    const sendCpuSeconds = (await cpuSeconds(portal.child.pid)) - cpuBefore;
    if (threadsBefore) printThreadCpu('sending', threadsBefore, await threadCpuSeconds(portal.child.pid));
    await waitUntilReady(portal, rows, instances);
    const seconds = since();
    const serverCpuSeconds = (await cpuSeconds(portal.child.pid)) - cpuBefore;
    const clientCpuSeconds = cpuTotal(process.cpuUsage(clientBefore));
    if (threadsBefore) printThreadCpu('in all', threadsBefore, await threadCpuSeconds(portal.child.pid));
    return { seconds, uploadSeconds, peakRssBytes: await peakRssBytes(portal.child.pid), serverCpuSeconds, clientCpuSeconds, sendCpuSeconds };
  } catch (err) {
    throw new Error(`${name}: ${err instanceof Error ? err.message : String(err)}\n--- server output ---\n${portal.child.output()}`, { cause: err });
  } finally {
    await stopChild(portal.child);
  }
}

async function sendMultipart(portal: Portal, file: string, name: string, contentType: string, bytes: number): Promise<void> {
  const frame = multipartFrame({ studypetitionid: String(portal.projectId) }, { field: 'file', name, contentType });
  const answer = await streamRequest(
    `${portal.base}/upload-study-petitions-files`,
    { 'content-type': frame.contentType, authorization: `Bearer ${portal.token}` },
    { before: frame.before, file, fileBytes: bytes, after: frame.after },
  );
  if (answer.status !== 201) throw new Error(`uploading ${name} answered ${answer.status}: ${answer.body.slice(0, 500)}`);
}

/** A small file read whole and sent in one write, as the Orthanc case sends its files: the two clients cost the same. */
async function sendSmallMultipart(portal: Portal, data: Buffer, name: string): Promise<void> {
  const frame = multipartFrame({ studypetitionid: String(portal.projectId) }, { field: 'file', name, contentType: 'application/dicom' });
  const answer = await postBuffer(`${portal.base}/upload-study-petitions-files`, { 'content-type': frame.contentType, authorization: `Bearer ${portal.token}` }, Buffer.concat([frame.before, data, frame.after]));
  if (answer.status !== 201) throw new Error(`uploading ${name} answered ${answer.status}: ${answer.body.slice(0, 500)}`);
}

function postBuffer(url: string, headers: Record<string, string>, body: Buffer) {
  return sendBuffer('POST', url, headers, body);
}

function sendBuffer(method: string, url: string, headers: Record<string, string>, body: Buffer): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method, headers: { ...headers, 'content-length': String(body.length) } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString() }));
      response.once('error', reject);
    });
    request.once('error', reject);
    request.end(body);
  });
}


/**
 * As the web app's Select Folder sends a folder: its files in path order through the contract's
 * planBundles, each bundle one tus upload (metadata `bundle=tar`; with its creation when it fits in
 * its creation when it is at most 1 MiB, else a creation and then its chunks), each file over 1 MiB alone as before; then the
 * delivery's completion.
 */
async function sendDelivery(portal: Portal, files: FileSet, inFlight: number): Promise<void> {
  const created = await jsonRequest(`${portal.base}/deliveries`, 'POST', { studypetitionid: portal.projectId, name: 'CD export' }, portal.token);
  const id = (created.json as { data?: { id: number }[] } | undefined)?.data?.[0]?.id;
  if (created.status !== 201 || id === undefined) throw new Error(`creating the delivery answered ${created.status}: ${JSON.stringify(created.json)}`);
  const folder = await Promise.all(
    files.names.map(async (name) => ({ name, path: `DICOM/${name}`, size: (await stat(path.join(files.dir, name))).size, mtimeMs: 0 })),
  );
  folder.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const { bundles, alone } = planBundles(folder);
  const sends: (() => Promise<void>)[] = [
    ...bundles.map((members, i) => () => sendBundle(portal, id, members, files.dir, `bundle-${i + 1}.tar`)),
    ...alone.map((file) => () => sendAlone(portal, id, file, files.dir)),
  ];
  await inPool(sends, inFlight, (send) => send());
  const completing = process.hrtime.bigint();
  const completed = await jsonRequest(`${portal.base}/deliveries/${id}/complete`, 'POST', undefined, portal.token);
  if (completed.status !== 200) throw new Error(`completing the delivery answered ${completed.status}: ${JSON.stringify(completed.json)}`);
  console.log(`  delivery: ${bundles.length} bundles and ${alone.length} files alone; completion answered in ${(Number(process.hrtime.bigint() - completing) / 1e9).toFixed(2)} s`);
}

const tusMetadata = (pairs: [string, string][]) => pairs.map(([key, value]) => `${key} ${Buffer.from(value).toString('base64')}`).join(',');

/**
 * A bundle packed with the contract's packer, the bytes the web app sends. Each file is read straight
 * into its place in the bundle, synchronously: the page sends its Blob parts as the browser streams
 * them, with no per-file work on the server's machine, while `readFile` cost this client ~0.5 ms of
 * CPU per file on the server's two cores (docs/performance.md, 'Many small files: `npm run
 * bench:files`').
 */
async function sendBundle(portal: Portal, delivery: number, members: readonly (BundleMember & { name: string })[], dir: string, name: string): Promise<void> {
  const bundle = Buffer.alloc(bundleSize(members));
  let at = 0;
  for (const member of members) {
    const header = tarMemberHeader(member);
    bundle.set(header, at);
    at += header.length;
    readWhole(path.join(dir, member.name), bundle.subarray(at, at + member.size));
    at += member.size;
    at += tarPadding(member.size).length;
  }
  if (at + TAR_END.length !== bundle.length) throw new Error(`${name}: packed ${at + TAR_END.length} bytes where bundleSize says ${bundle.length}`);
  const metadata = tusMetadata([
    ['filename', name],
    ['delivery', String(delivery)],
    [BUNDLE_METADATA_KEY, BUNDLE_METADATA_VALUE],
  ]);
  await sendTus(portal, metadata, bundle, name);
}

/** Fills `into` with the file's first bytes; a file shorter than `into` is an error. */
function readWhole(file: string, into: Buffer): void {
  const fd = openSync(file, 'r');
  try {
    let read = 0;
    while (read < into.length) {
      const n = readSync(fd, into, read, into.length - read, read);
      if (n === 0) throw new Error(`${file} is shorter than the ${into.length} bytes planned`);
      read += n;
    }
  } finally {
    closeSync(fd);
  }
}

/** A file over the bundles' limit: one tus upload of its own, as before bundles. */
async function sendAlone(portal: Portal, delivery: number, file: { name: string; path: string }, dir: string): Promise<void> {
  const data = await readFile(path.join(dir, file.name));
  const metadata = tusMetadata([
    ['delivery', String(delivery)],
    ['relativePath', file.path],
  ]);
  await sendTus(portal, metadata, data, file.name);
}

/** Each portal's chunk size (GET /upload-settings), asked at its first file over 1 MiB and kept, as the web app keeps its answer. */
const chunkSizes = new WeakMap<Portal, Promise<number>>();
function chunkBytesOf(portal: Portal): Promise<number> {
  const asked = chunkSizes.get(portal) ?? readChunkBytes(portal);
  chunkSizes.set(portal, asked);
  return asked;
}

/**
 * One tus upload as tus-js-client sends it with the web app's settings (tus-chunk.ts): with its
 * creation when it is that small (no chunk size asked), else created first, then in chunks of the
 * size the portal tells the web app.
 */
async function sendTus(portal: Portal, metadata: string, data: Buffer, name: string): Promise<void> {
  const headers = { 'tus-resumable': '1.0.0', authorization: `Bearer ${portal.token}` };
  const whole = data.length <= WITH_CREATION_MAX_BYTES;
  const chunkBytes = whole ? data.length : await chunkBytesOf(portal);
  const created = await postBuffer(
    `${portal.base}/uploads`,
    { ...headers, 'upload-length': String(data.length), 'upload-metadata': metadata, ...(whole ? { 'content-type': 'application/offset+octet-stream' } : {}) },
    whole ? data : Buffer.alloc(0),
  );
  if (created.status !== 201) throw new Error(`creating ${name} answered ${created.status}: ${created.body.slice(0, 500)}`);
  let offset = Number(created.headers['upload-offset'] ?? 0);
  const location = created.headers.location;
  while (offset < data.length) {
    if (location === undefined) throw new Error(`creating ${name} answered no Location`);
    const chunk = data.subarray(offset, offset + chunkBytes);
    const patched = await sendBuffer('PATCH', new URL(location, portal.base).toString(), { ...headers, 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream' }, chunk);
    if (patched.status !== 204) throw new Error(`sending ${name} at ${offset} answered ${patched.status}: ${patched.body.slice(0, 500)}`);
    offset = Number(patched.headers['upload-offset']);
  }
  if (offset !== data.length) throw new Error(`${name} ended at offset ${offset} of ${data.length}`);
}

const POLL_MS = 100;

/** Until `rows` rows are ready, each holding `instances` DICOM instances; a failed row fails the run. */
async function waitUntilReady(portal: Portal, rows: number, instances: number): Promise<void> {
  const count = async (status: string) => {
    const answer = await jsonRequest(`${portal.base}/study-petitions-files?study_petition_id=${portal.projectId}&status=${status}&per_page=1`, 'GET', undefined, portal.token);
    const total = (answer.json as { page?: { total: number } } | undefined)?.page?.total;
    if (answer.status !== 200 || total === undefined) throw new Error(`listing ${status} files answered ${answer.status}`);
    return total;
  };
  for (;;) {
    if ((await count('failed')) > 0) throw new Error('a row failed processing');
    if ((await count('ready')) === rows) break;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  const listed = await jsonRequest(`${portal.base}/study-petitions-files?study_petition_id=${portal.projectId}`, 'GET', undefined, portal.token);
  const data = (listed.json as { data?: { processing: { summary: { instances: number } | null } }[] } | undefined)?.data ?? [];
  const wrong = data.filter((row) => row.processing.summary?.instances !== instances);
  if (data.length !== rows || wrong.length > 0) throw new Error(`expected ${rows} rows of ${instances} instances, got ${data.length} rows, ${wrong.length} with other counts, e.g. ${JSON.stringify(wrong[0]?.processing.summary)}`);
}

/** BENCH_THREADS=1: where the server's CPU went, by thread name (main, libuv pool, V8 helpers). */
function printThreadCpu(phase: string, before: Map<string, number>, after: Map<string, number>): void {
  const spent = [...after].map(([name, s]) => [name, s - (before.get(name) ?? 0)] as const).filter(([, s]) => s > 0.005);
  console.log(`  server CPU by thread, ${phase}: ${spent.map(([name, s]) => `${name} ${s.toFixed(2)} s`).join(', ')}`);
}

export const cpuTotal = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1e6;
