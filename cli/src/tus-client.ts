// tus 1.0 as the portal speaks it (docs/api.md, "Resumable uploads"): create, then PATCH from the
// offset the server holds. After a network failure the upload is asked where it stands (HEAD) and
// continued from there, so no byte the server has is sent twice.
import { CliError, EXIT } from './exit-codes.js';
import { readRange, sourceSize, type Part } from './byte-source.js';
import { failureOf, type PortalApi } from './portal-api.js';

const TUS = { 'tus-resumable': '1.0.0' };

function encodeMetadata(metadata: Record<string, string>): string {
  return Object.entries(metadata)
    .map(([key, value]) => `${key} ${Buffer.from(value).toString('base64')}`)
    .join(',');
}

function fileIdOf(answer: Response): number | null {
  const id = Number(answer.headers.get('portal-file-id'));
  return Number.isInteger(id) && id > 0 ? id : null;
}

export interface Standing {
  offset: number;
  length: number;
  fileId: number | null;
}

/** Where an upload stands, or null when the server no longer has it (expired, removed, refused). */
export async function standingOf(api: PortalApi, url: URL): Promise<Standing | null> {
  const answer = await api.request(url, { method: 'HEAD', headers: TUS });
  if (answer.status === 404) return null;
  if (!answer.ok) throw await failureOf(answer, 'Asking the portal where an upload stands');
  return { offset: Number(answer.headers.get('upload-offset')), length: Number(answer.headers.get('upload-length')), fileId: fileIdOf(answer) };
}

export async function createUpload(api: PortalApi, length: number, metadata: Record<string, string>, doing: string): Promise<URL> {
  const answer = await api.request(api.address('/uploads'), {
    method: 'POST',
    headers: { ...TUS, 'upload-length': String(length), 'upload-metadata': encodeMetadata(metadata) },
  });
  const location = answer.headers.get('location');
  if (answer.status !== 201 || !location) throw await failureOf(answer, doing);
  return api.address(new URL(location, api.address('/uploads')).pathname);
}

export interface SendOptions {
  parts: readonly Part[];
  chunkBytes: number;
  doing: string;
  /** Bytes the server now holds beyond what it held (negative never). */
  onBytes: (bytes: number) => void;
  onRetry: (error: CliError, delayMs: number) => void;
  /** Just created: it holds nothing yet, so there is no need to ask. */
  fresh?: boolean;
}

async function patch(api: PortalApi, url: URL, options: SendOptions, offset: number): Promise<Response> {
  const end = Math.min(offset + options.chunkBytes, sourceSize(options.parts));
  async function* counted() {
    for await (const piece of readRange(options.parts, offset, end)) {
      yield piece;
      options.onBytes(piece.length);
    }
  }
  return api.request(url, {
    method: 'PATCH',
    headers: { ...TUS, 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream', 'content-length': String(end - offset) },
    // Node's fetch takes an async iterable as a streamed body; the DOM's types do not say so.
    body: counted() as unknown as ReadableStream,
    duplex: 'half',
  });
}

/**
 * Sends the rest of an upload from where the server stands; answers the project file it became
 * (null for a file of a delivery). `onBytes` is told the bytes sent, and taken back (negative) when
 * a broken request's bytes did not all arrive.
 */
export async function sendRest(api: PortalApi, url: URL, options: SendOptions): Promise<number | null> {
  const length = sourceSize(options.parts);
  let standing = options.fresh ? { offset: 0, length, fileId: null } : await api.withRetries(async () => {
    const known = await standingOf(api, url);
    if (!known) throw new CliError(EXIT.notFound, `${options.doing}: the portal no longer has this upload.`);
    return known;
  }, options.onRetry);
  if (standing.length !== length) throw new CliError(EXIT.unexpected, `${options.doing}: the files changed since the upload began (${length} bytes now, ${standing.length} then).`);
  options.onBytes(standing.offset);
  if (standing.offset === length) return standing.fileId;
  return api.withRetries(async () => {
    for (;;) {
      let sent = 0;
      const answer = await patch(api, url, { ...options, onBytes: (n) => ((sent += n), options.onBytes(n)) }, standing.offset).catch(async (error: unknown) => {
        // What arrived of a broken request is kept by the server: ask, and count only that.
        const now = await standingOf(api, url).catch(() => null);
        options.onBytes((now ? now.offset - standing.offset : 0) - sent);
        if (now) standing = now;
        throw error;
      });
      if (!answer.ok) {
        options.onBytes(-sent);
        const failure = await failureOf(answer, options.doing);
        if (answer.status === 409) standing = (await standingOf(api, url)) ?? standing;
        throw answer.status === 409 ? new CliError(EXIT.network, failure.message) : failure;
      }
      standing = { ...standing, offset: Number(answer.headers.get('upload-offset')) };
      if (standing.offset >= length) return fileIdOf(answer);
    }
  }, options.onRetry);
}
