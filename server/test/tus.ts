// Raw tus 1.0 requests, as a client library would send them, and what an upload leaves on disk.
import fs from 'node:fs';
import path from 'node:path';

export interface TusAnswer {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read JSON answers loosely
  body: any;
}

async function answer(response: Response): Promise<TusAnswer> {
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON: the test sees the raw text.
  }
  return { status: response.status, headers: response.headers, body };
}

export function encodeMetadata(meta: Record<string, string>): string {
  return Object.entries(meta)
    .map(([key, value]) => `${key} ${Buffer.from(value).toString('base64')}`)
    .join(',');
}

export interface Creation {
  name?: string;
  projectId?: number | string;
  size: number;
  /** Bytes sent with the creation (creation-with-upload). */
  body?: Buffer;
  metadata?: string;
  headers?: Record<string, string>;
}

export async function createUpload(api: string, token: string | undefined, c: Creation): Promise<TusAnswer> {
  const meta: Record<string, string> = {};
  if (c.name !== undefined) meta.filename = c.name;
  if (c.projectId !== undefined) meta.studypetitionid = String(c.projectId);
  const headers: Record<string, string> = {
    'tus-resumable': '1.0.0',
    'upload-length': String(c.size),
    'upload-metadata': c.metadata ?? encodeMetadata(meta),
    ...c.headers,
  };
  if (token) headers.authorization = `Bearer ${token}`;
  if (c.body) headers['content-type'] = 'application/offset+octet-stream';
  return answer(await fetch(`${api}/uploads`, { method: 'POST', headers, body: c.body ? new Uint8Array(c.body) : null }));
}

/** The absolute URL of a created upload (its Location is relative to the server). */
export function uploadUrl(api: string, created: TusAnswer): string {
  const location = created.headers.get('location');
  if (!location) throw new Error(`no Location: ${created.status} ${JSON.stringify(created.body)}`);
  return new URL(location, api).toString();
}

export async function patchUpload(url: string, token: string | undefined, offset: number, bytes: Buffer): Promise<TusAnswer> {
  const headers: Record<string, string> = {
    'tus-resumable': '1.0.0',
    'upload-offset': String(offset),
    'content-type': 'application/offset+octet-stream',
  };
  if (token) headers.authorization = `Bearer ${token}`;
  return answer(await fetch(url, { method: 'PATCH', headers, body: new Uint8Array(bytes) }));
}

export async function headUpload(url: string, token: string | undefined): Promise<TusAnswer> {
  const headers: Record<string, string> = { 'tus-resumable': '1.0.0' };
  if (token) headers.authorization = `Bearer ${token}`;
  return answer(await fetch(url, { method: 'HEAD', headers }));
}

export async function deleteUpload(url: string, token: string | undefined): Promise<TusAnswer> {
  const headers: Record<string, string> = { 'tus-resumable': '1.0.0' };
  if (token) headers.authorization = `Bearer ${token}`;
  return answer(await fetch(url, { method: 'DELETE', headers }));
}

/**
 * Files one unfinished upload keeps in DATA_DIR/tus: its bytes with the file store (what tus keeps
 * about it is its record); none with the shared store (TUS_STORE=shared, the S3 pass), whose bytes
 * are objects in storage.
 */
export function localTusFiles(server: { config: { resumable: { store: 'file' | 'shared' } } }): number {
  return server.config.resumable.store === 'file' ? 1 : 0;
}

/** Every file in the folder of unfinished resumable uploads. */
export function tusFiles(dataDir: string): string[] {
  const dir = path.join(dataDir, 'tus');
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
}
