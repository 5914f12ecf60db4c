// The one shape in which an upload's bytes reach uploads/, whatever way they came in (DESIGN §10,
// "two ways in, one pipeline"): a request body streamed, a small body read whole, bytes already in
// memory, or a local file that tus (either store) or a bundle wrote. storeArriving applies the
// byte rules to each the same way: the size limit, the first bytes' check, the SHA-256 (taken once:
// a digest taken as the bytes arrived is trusted, never taken again), and durable before visible
// unless the caller syncs a whole delivery at once.
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Storage } from '../storage/storage.js';
import { storeLocalFile, storeUpload, UPLOAD_HEAD_BYTES, UploadTooLargeError, type StoredUpload } from './upload-pipeline.js';
import { readWholeSource } from './whole-source.js';

export type ArrivingBytes =
  /** A request body as it arrives (multipart). `whole`: small enough to be read into memory first (WHOLE_UPLOAD_MAX_BYTES). */
  | { from: 'stream'; source: Readable & { truncated?: boolean }; whole?: boolean; expectedBytes?: number; signal?: AbortSignal }
  /** Bytes already read whole (a tus creation that carried the whole file). */
  | { from: 'memory'; bytes: Buffer }
  /**
   * A file written in full on this machine (a finished tus upload, a shared store's assembled work
   * file, a bundle); moved, not copied. `sha256` when taken over exactly these bytes as they arrived,
   * `size` when the writer knows it: neither is then read again.
   */
  | { from: 'file'; path: string; sha256?: string | undefined; size?: number };

export interface ByteRules {
  storage: Storage;
  /** A server-made key (storage/object-key.ts). */
  key: string;
  /** More bytes than this: 413, nothing stored. */
  maxBytes: number;
  /** The content check on the first UPLOAD_HEAD_BYTES bytes, before anything is visible; throwing refuses the upload. None for a delivery's files (a folder holds what it holds). */
  checkHead?: ((head: Buffer) => void) | undefined;
  /** false: visible at once, synced later with the rest of its delivery. Default true. */
  durable?: boolean;
}

/** Stores `bytes` under `rules.key` by the byte rules; on any refusal nothing is stored. */
export async function storeArriving(bytes: ArrivingBytes, rules: ByteRules): Promise<StoredUpload> {
  switch (bytes.from) {
    case 'stream': {
      const signal = bytes.signal ? { signal: bytes.signal } : {};
      if (bytes.whole) return storeInMemory(await readWholeSource(bytes.source, rules.maxBytes, bytes.signal), rules, bytes.signal);
      const expected = bytes.expectedBytes !== undefined ? { expectedBytes: bytes.expectedBytes } : {};
      return storeUpload({ source: bytes.source, storage: rules.storage, key: rules.key, maxBytes: rules.maxBytes, checkHead: rules.checkHead, ...signal, ...expected });
    }
    case 'memory':
      return storeInMemory(bytes.bytes, rules, undefined);
    case 'file':
      return storeLocalFile({
        path: bytes.path,
        storage: rules.storage,
        key: rules.key,
        maxBytes: rules.maxBytes,
        checkHead: rules.checkHead,
        durable: rules.durable ?? true,
        ...(bytes.sha256 !== undefined ? { sha256: bytes.sha256 } : {}),
        ...(bytes.size !== undefined ? { size: bytes.size } : {}),
      });
  }
}

/** The SHA-256 of bytes held in memory, lower-case hex (inline: for at most a few MiB the worker's hand-over costs more). */
export function sha256Of(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The byte rules for bytes in memory. */
export async function storeInMemory(bytes: Buffer, rules: ByteRules, signal: AbortSignal | undefined): Promise<StoredUpload> {
  if (bytes.length > rules.maxBytes) throw new UploadTooLargeError(rules.maxBytes);
  const head = bytes.subarray(0, UPLOAD_HEAD_BYTES);
  rules.checkHead?.(head);
  const sha256 = sha256Of(bytes);
  const { size } = await rules.storage.putBytes(rules.key, bytes, { ...(signal ? { signal } : {}), durable: rules.durable ?? true });
  return { key: rules.key, size, sha256, head };
}
