import type { TDelivery } from '@portal/contract';
import { AxiosError, CanceledError, type AxiosResponse, type InternalAxiosRequestConfig } from 'axios';
import { answerApiWith } from '../../../test/fake-api';
import { DEFAULT_CHUNK_BYTES } from '../api/tus-chunk';
import { readTar, type TarEntry } from './read-tar';

/** What the fake does with one request; the default is what a well-behaved tus 1.0 server does. */
export type Fault = { network: true } | { status: number; message: string } | { hold: Promise<void> } | null;

export interface FakeUpload {
  id: number;
  filename: string;
  projectId: string;
  length: number;
  offset: number;
  /** Tokens here read `u<user>-<session>`: the server knows whose token it is, not only the token. */
  owner: string | null;
  /** For a file of a folder: the delivery named in its metadata and its path inside the folder. */
  delivery?: string;
  relativePath?: string;
  /** The rejected file the upload replaces (metadata replaces). */
  replaces?: string;
  /** True for a bundle of a delivery's files (metadata bundle=tar); its members are read at the last byte. */
  bundle?: boolean;
  /** The bytes that arrived, kept for bundles so their members can be read back. */
  chunks?: Blob[];
  members?: TarEntry[];
}

export interface FakeDelivery {
  id: number;
  name: string;
  projectId: number;
  completed: boolean;
  replaces?: number;
}

/** A delivery as the server answers it (contract ZDelivery); sizes and times do not matter to these tests. */
function deliveryAnswer(delivery: FakeDelivery): TDelivery {
  return {
    id: delivery.id,
    name: delivery.name,
    status: delivery.completed ? 'completed' : 'open',
    studypetitionid: delivery.projectId,
    files: 0,
    bytes: 0,
    file_id: null,
    expires_at: delivery.completed ? null : '2026-01-02T00:00:00.000Z',
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
  };
}

/** What GET /upload-settings answers: a chunk size, or any status and body, or no answer at all. */
export type SettingsReply = { chunkBytes: number } | { status: number; data: unknown } | { network: true };

const ownerOf = (authorization: string | undefined): string | null => /^Bearer (u\d+)-/.exec(authorization ?? '')?.[1] ?? null;

interface FakeTusOptions {
  /** Refuses a creation (before any byte), like the server's 401/403/404/413/415 rules. */
  refuseCreation?: (upload: FakeUpload) => { status: number; message: string } | null;
  /** Interferes with one PATCH: called with the upload and the number of PATCHes it has had so far. */
  patchFault?: (upload: FakeUpload, attempt: number) => Fault;
  /** Refuses the complete file at its last byte (the server's final content check). */
  refuseFinal?: (upload: FakeUpload) => { status: number; message: string } | null;
  /** Refuses opening a delivery, like the server's 403/404/422 rules. */
  refuseDelivery?: (name: string) => { status: number; message: string } | null;
  /** Refuses a file of a delivery by its path at the last byte (422 naming it), alone or in a bundle. */
  refusePath?: (path: string) => string | null;
  /** Answers GET /upload-settings; by default with the server's default chunk size. */
  uploadSettings?: () => SettingsReply | Promise<SettingsReply>;
  /** Answers other calls of the one client (the file list the dialog reads after an upload). */
  otherRoutes?: Record<string, unknown>;
}

function decodeMetadata(header: string | undefined): Record<string, string> {
  const pairs = (header ?? '').split(',').filter(Boolean);
  return Object.fromEntries(
    pairs.map((pair) => {
      const [key = '', value = ''] = pair.trim().split(' ');
      return [key, new TextDecoder().decode(Uint8Array.from(atob(value), (c) => c.charCodeAt(0)))];
    }),
  );
}

/**
 * A tus 1.0 server behind the one axios instance (creation, HEAD, PATCH, termination, and the
 * portal's `Portal-File-Id` on the last answer), so the real tus-js-client, the real HTTP stack and
 * the real interceptors run in component tests. Bytes are counted as they would be on a server.
 */
export function fakeTusServer(options: FakeTusOptions = {}) {
  const uploads = new Map<number, FakeUpload>();
  const requests: Array<{ method: string; url: string; authorization: string | null; offset?: string }> = [];
  const patches = new Map<number, number>();
  let nextId = 1;
  let nextFileId = 100;
  const deliveries: FakeDelivery[] = [];
  const state = { bytesReceived: 0, terminated: [] as number[], completed: [] as Array<{ upload: FakeUpload; fileId: number }> };

  const reply = (config: InternalAxiosRequestConfig, status: number, headers: Record<string, string> = {}, data: unknown = ''): AxiosResponse => {
    const response: AxiosResponse = { status, statusText: '', headers, data, config, request: {} };
    if (status >= 400) throw new AxiosError(`Request failed with status code ${status}`, AxiosError.ERR_BAD_RESPONSE, config, {}, response);
    return response;
  };

  /** The files a delivery holds, by path: a bundle's members are checked like files sent alone, all or none. */
  const deliveryFiles = new Map<string, Map<string, Uint8Array | null>>();
  const acceptIntoDelivery = async (upload: FakeUpload): Promise<{ status: number; message: string } | null> => {
    if (upload.delivery === undefined) return null;
    const held = deliveryFiles.get(upload.delivery) ?? new Map<string, Uint8Array | null>();
    if (upload.bundle) upload.members = readTar(new Uint8Array(await new Blob(upload.chunks).arrayBuffer()));
    const arriving: Array<[string, Uint8Array | null]> = upload.bundle ? (upload.members ?? []).map((m) => [m.path, m.bytes]) : [[upload.relativePath ?? '', null]];
    for (const [path] of arriving) {
      const reason = held.has(path) ? `The path "${path}" is already taken in this delivery` : options.refusePath?.(path);
      if (reason) return { status: 422, message: reason };
    }
    for (const [path, bytes] of arriving) held.set(path, bytes);
    deliveryFiles.set(upload.delivery, held);
    return null;
  };

  answerApiWith(async (config) => {
    const method = (config.method ?? 'get').toUpperCase();
    const url = config.url ?? '';
    const header = (name: string) => {
      const value: unknown = config.headers.get(name);
      return typeof value === 'string' ? value : undefined;
    };
    requests.push({ method, url, authorization: header('Authorization') ?? null, offset: header('Upload-Offset') });
    const match = /^\/uploads\/(\d+)$/.exec(url);
    const upload = match ? uploads.get(Number(match[1])) : undefined;

    if (method === 'POST' && url === '/uploads') {
      const meta = decodeMetadata(header('Upload-Metadata'));
      const candidate: FakeUpload = {
        id: nextId,
        filename: meta.filename ?? '',
        projectId: meta.studypetitionid ?? '',
        length: Number(header('Upload-Length')),
        offset: 0,
        owner: ownerOf(header('Authorization')),
        delivery: meta.delivery,
        relativePath: meta.relativePath,
        replaces: meta.replaces,
        bundle: meta.bundle === 'tar',
        chunks: [],
      };
      const delivery = meta.delivery === undefined ? undefined : deliveries.find((d) => String(d.id) === meta.delivery);
      if (meta.delivery !== undefined && !delivery) return reply(config, 404, {}, JSON.stringify({ message: 'Delivery not found' }));
      if (delivery?.completed) return reply(config, 409, {}, JSON.stringify({ message: 'This delivery is already complete' }));
      const refused = options.refuseCreation?.(candidate);
      if (refused) return reply(config, refused.status, {}, JSON.stringify({ message: refused.message }));
      nextId += 1;
      uploads.set(candidate.id, candidate);
      const created = { location: `/api/v1/uploads/${candidate.id}`, 'tus-resumable': '1.0.0' };
      // creation-with-upload: the bytes came with the creation, as a whole small file does.
      const sent = config.data instanceof Blob ? config.data : undefined;
      if (sent === undefined || sent.size === 0) return reply(config, 201, created);
      config.onUploadProgress?.({ loaded: sent.size, total: sent.size, bytes: sent.size, lengthComputable: true });
      candidate.offset = sent.size;
      state.bytesReceived += sent.size;
      if (candidate.offset < candidate.length) return reply(config, 201, { ...created, 'upload-offset': String(candidate.offset) });
      candidate.chunks?.push(sent);
      uploads.delete(candidate.id);
      const refusal = options.refuseFinal?.(candidate) ?? (await acceptIntoDelivery(candidate));
      if (refusal) return reply(config, refusal.status, {}, JSON.stringify({ message: refusal.message }));
      const fileId = nextFileId++;
      state.completed.push({ upload: candidate, fileId });
      const finished = { ...created, 'upload-offset': String(candidate.offset) };
      return reply(config, 201, candidate.delivery !== undefined ? finished : { ...finished, 'portal-file-id': String(fileId) });
    }
    if (match) {
      // Only the creator may see or continue an upload: anyone else gets the same 404 as a missing one.
      if (!upload || upload.owner === null || upload.owner !== ownerOf(header('Authorization'))) return reply(config, 404, {}, JSON.stringify({ message: 'Upload not found' }));
      if (method === 'HEAD') return reply(config, 200, { 'upload-offset': String(upload.offset), 'upload-length': String(upload.length) });
      if (method === 'DELETE') {
        uploads.delete(upload.id);
        state.terminated.push(upload.id);
        return reply(config, 204);
      }
      if (method === 'PATCH') {
        const attempt = patches.get(upload.id) ?? 0;
        patches.set(upload.id, attempt + 1);
        const fault = options.patchFault?.(upload, attempt) ?? null;
        if (fault && 'network' in fault) throw new AxiosError('Network Error', AxiosError.ERR_NETWORK, config, {});
        if (fault && 'status' in fault) return reply(config, fault.status, {}, JSON.stringify({ message: fault.message }));
        if (Number(header('Upload-Offset')) !== upload.offset) return reply(config, 409, {}, JSON.stringify({ message: 'Offset mismatch' }));
        const body = config.data as Blob;
        if (fault && 'hold' in fault) {
          config.onUploadProgress?.({ loaded: Math.floor(body.size / 2), total: body.size, bytes: 0, lengthComputable: true });
          await new Promise<void>((resolve, reject) => {
            config.signal?.addEventListener?.('abort', () => reject(new CanceledError(undefined, undefined, config)));
            void fault.hold.then(resolve);
          });
        }
        config.onUploadProgress?.({ loaded: body.size, total: body.size, bytes: body.size, lengthComputable: true });
        upload.offset += body.size;
        upload.chunks?.push(body);
        state.bytesReceived += body.size;
        if (upload.offset < upload.length) return reply(config, 204, { 'upload-offset': String(upload.offset) });
        uploads.delete(upload.id);
        const refusal = options.refuseFinal?.(upload) ?? (await acceptIntoDelivery(upload));
        if (refusal) return reply(config, refusal.status, {}, JSON.stringify({ message: refusal.message }));
        const fileId = nextFileId++;
        state.completed.push({ upload, fileId });
        // A file of a delivery is not a row of its own: its answer names no file (docs/api.md).
        if (upload.delivery !== undefined) return reply(config, 204, { 'upload-offset': String(upload.offset) });
        return reply(config, 204, { 'upload-offset': String(upload.offset), 'portal-file-id': String(fileId) });
      }
    }
    if (method === 'POST' && url === '/deliveries') {
      const body = JSON.parse(String(config.data)) as { studypetitionid: number; name: string; replaces?: number };
      const refusal = options.refuseDelivery?.(body.name);
      if (refusal) return reply(config, refusal.status, {}, JSON.stringify({ message: refusal.message }));
      const delivery = { id: 500 + deliveries.length, name: body.name, projectId: body.studypetitionid, completed: false, replaces: body.replaces };
      deliveries.push(delivery);
      return reply(config, 201, {}, { data: [deliveryAnswer(delivery)] });
    }
    const shown = /^\/deliveries\/(\d+)$/.exec(url);
    if (method === 'GET' && shown) {
      const delivery = deliveries.find((d) => d.id === Number(shown[1]));
      if (!delivery) return reply(config, 404, {}, JSON.stringify({ message: 'Delivery not found' }));
      return reply(config, 200, {}, { data: [deliveryAnswer(delivery)] });
    }
    const completion = /^\/deliveries\/(\d+)\/complete$/.exec(url);
    if (method === 'POST' && completion) {
      const delivery = deliveries.find((d) => d.id === Number(completion[1]));
      if (!delivery) return reply(config, 404, {}, JSON.stringify({ message: 'Delivery not found' }));
      if (delivery.completed) return reply(config, 409, {}, JSON.stringify({ message: 'This delivery is already complete' }));
      if ([...uploads.values()].some((u) => u.delivery === String(delivery.id))) return reply(config, 409, {}, JSON.stringify({ message: 'Files of this delivery are still arriving' }));
      delivery.completed = true;
      return reply(config, 200, {}, { data: [{ id: delivery.id, name: delivery.name, status: 'completed', file_id: 900 + delivery.id }] });
    }
    if (method === 'GET' && url === '/upload-settings') {
      const settings = (await options.uploadSettings?.()) ?? { chunkBytes: DEFAULT_CHUNK_BYTES };
      if ('network' in settings) throw new AxiosError('Network Error', AxiosError.ERR_NETWORK, config, {});
      if ('chunkBytes' in settings) return reply(config, 200, {}, { data: [{ chunk_bytes: settings.chunkBytes }] });
      return reply(config, settings.status, {}, settings.data);
    }
    const key = `${method} ${url}`;
    if (options.otherRoutes && key in options.otherRoutes) return reply(config, 200, {}, options.otherRoutes[key]);
    return reply(config, 404, {}, JSON.stringify({ message: 'Not found' }));
  });

  return {
    state,
    deliveries,
    /** Every file each delivery holds, by path (a bundle's members with their bytes). */
    deliveryFiles,
    requests,
    uploads,
    /** Simulates another browser tab's or user's upload already on the server. */
    seed(upload: Omit<FakeUpload, 'id'>): FakeUpload {
      const created = { ...upload, id: nextId++ };
      uploads.set(created.id, created);
      return created;
    },
  };
}
