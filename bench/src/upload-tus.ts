// The resumable path, tus 1.0 at /api/v1/uploads, as the web app drives it (tus-js-client's
// requests, written out): the chunk size the portal tells the web app (GET /upload-settings, its
// UPLOAD_CHUNK_BYTES) unless the benchmark is given one, a creation with Upload-Length and
// Upload-Metadata, then the file in PATCH requests of one chunk each, one after the other. The
// last answer names the new file (Portal-File-Id), which is then read back for its size and
// SHA-256.
import type { TUploadSettings } from '@portal/contract';
import { streamRequest, jsonRequest, type HttpAnswer } from './upload-http.js';
import type { InputFile } from './upload-input.js';
import type { Portal, PortalUpload, StoredFile } from './upload-portal.js';

/** The chunk size the portal tells the web app, so the benchmark sends files as the web app does. */
export async function readChunkBytes(portal: Portal): Promise<number> {
  const answer = await jsonRequest(`${portal.base}/upload-settings`, 'GET', undefined, portal.token);
  const bytes = (answer.json as { data?: Partial<TUploadSettings>[] } | undefined)?.data?.[0]?.chunk_bytes;
  // No fallback: a figure measured at a size the portal did not ask for would be mislabelled.
  if (answer.status !== 200 || bytes === undefined || !(bytes > 0)) throw new Error(`GET /upload-settings answered ${answer.status}: ${JSON.stringify(answer.json)}`);
  return bytes;
}

export async function createTusUpload(portal: Portal, input: InputFile): Promise<string> {
  const metadata = [
    ['filename', `bench-${input.bytes}.dcm`],
    ['studypetitionid', String(portal.projectId)],
  ]
    .map(([key, value]) => `${key} ${Buffer.from(value!).toString('base64')}`)
    .join(',');
  const created = await streamRequest(
    `${portal.base}/uploads`,
    {
      'tus-resumable': '1.0.0',
      'upload-length': String(input.bytes),
      'upload-metadata': metadata,
      authorization: `Bearer ${portal.token}`,
    },
    { file: input.path, fileBytes: 0 },
  );
  const location = created.headers['location'];
  if (created.status !== 201 || typeof location !== 'string') {
    throw new Error(`creating the tus upload answered ${created.status}: ${created.body.slice(0, 500)}`);
  }
  return new URL(location, `${portal.base}/`).toString();
}

export function patchChunk(portal: Portal, url: string, input: InputFile, offset: number, bytes: number): Promise<HttpAnswer> {
  return streamRequest(
    url,
    {
      'tus-resumable': '1.0.0',
      'upload-offset': String(offset),
      'content-type': 'application/offset+octet-stream',
      authorization: `Bearer ${portal.token}`,
    },
    { file: input.path, fileStart: offset, fileBytes: bytes },
    'PATCH',
  );
}

/** `chunkBytes` unset: the portal's (GET /upload-settings), asked within the timing as the web app asks before it sends. */
export async function uploadTus(portal: Portal, input: InputFile, chunkBytes?: number): Promise<PortalUpload> {
  const started = process.hrtime.bigint();
  const cpuBefore = process.cpuUsage();
  const chunk = chunkBytes ?? (await readChunkBytes(portal));
  const url = await createTusUpload(portal, input);
  let offset = 0;
  let fileId: string | undefined;
  let tailSeconds = 0;
  while (offset < input.bytes) {
    const answer = await patchChunk(portal, url, input, offset, Math.min(chunk, input.bytes - offset));
    if (answer.status !== 204) throw new Error(`PATCH at ${offset} answered ${answer.status}: ${answer.body.slice(0, 500)}`);
    offset = Number(answer.headers['upload-offset']);
    tailSeconds = answer.tailSeconds;
    const id = answer.headers['portal-file-id'];
    if (typeof id === 'string') fileId = id;
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = process.cpuUsage(cpuBefore);
  if (fileId === undefined) throw new Error('the last PATCH named no file (Portal-File-Id)');
  return { seconds, clientCpuSeconds: (cpu.user + cpu.system) / 1e6, tailSeconds, file: await readStoredFile(portal, fileId) };
}

export async function readStoredFile(portal: Portal, fileId: string): Promise<StoredFile> {
  const listed = await jsonRequest(
    `${portal.base}/study-petitions-files?study_petition_id=${portal.projectId}`,
    'GET',
    undefined,
    portal.token,
  );
  const files = (listed.json as { data?: (StoredFile & { id: number })[] } | undefined)?.data ?? [];
  const file = files.find((f) => String(f.id) === fileId);
  if (listed.status !== 200 || file === undefined) throw new Error(`file ${fileId} is not listed (${listed.status})`);
  return file;
}
