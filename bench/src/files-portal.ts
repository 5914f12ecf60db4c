// The portal's three ways of receiving the same many small files, each timed end to end, from the
// first request until every row is 'ready': (a) one delivery (a folder: tus uploads naming it,
// then its completion), (b) one multipart upload per file, (c) one stored zip.
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { inPool, type FileSet } from './files-input.js';
import { jsonRequest, multipartFrame, streamRequest } from './upload-http.js';
import { cpuSeconds, peakRssBytes, stopChild, threadCpuSeconds } from './upload-process.js';
import { startPortal, type Portal } from './upload-portal.js';

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
  /** Files in flight for the delivery (b always sends 4 at a time, as the issue measures it). */
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

function postBuffer(url: string, headers: Record<string, string>, body: Buffer): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: 'POST', headers: { ...headers, 'content-length': String(body.length) } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString() }));
      response.once('error', reject);
    });
    request.once('error', reject);
    request.end(body);
  });
}

/** As the web app's Select Folder sends a small file: in one tus creation-with-upload request. */
async function sendDelivery(portal: Portal, files: FileSet, inFlight: number): Promise<void> {
  const created = await jsonRequest(`${portal.base}/deliveries`, 'POST', { studypetitionid: portal.projectId, name: 'CD export' }, portal.token);
  const id = (created.json as { data?: { id: number }[] } | undefined)?.data?.[0]?.id;
  if (created.status !== 201 || id === undefined) throw new Error(`creating the delivery answered ${created.status}: ${JSON.stringify(created.json)}`);
  await inPool(files.names, inFlight, async (name) => {
    const data = await readFile(path.join(files.dir, name));
    const metadata = [
      ['delivery', String(id)],
      ['relativePath', `DICOM/${name}`],
    ]
      .map(([key, value]) => `${key} ${Buffer.from(value!).toString('base64')}`)
      .join(',');
    const answer = await postBuffer(
      `${portal.base}/uploads`,
      {
        'tus-resumable': '1.0.0',
        'upload-length': String(data.length),
        'upload-metadata': metadata,
        'content-type': 'application/offset+octet-stream',
        authorization: `Bearer ${portal.token}`,
      },
      data,
    );
    if (answer.status !== 201 || answer.headers['upload-offset'] !== String(data.length)) {
      throw new Error(`sending ${name} answered ${answer.status} at offset ${String(answer.headers['upload-offset'])}: ${answer.body.slice(0, 500)}`);
    }
  });
  const completed = await jsonRequest(`${portal.base}/deliveries/${id}/complete`, 'POST', undefined, portal.token);
  if (completed.status !== 200) throw new Error(`completing the delivery answered ${completed.status}: ${JSON.stringify(completed.json)}`);
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
