// Reading a stored instance through the storage abstraction (filesystem or S3 alike): ranges of
// its bytes as streams, and its header, read from ever longer prefixes (never the pixel data).
import type { Readable } from 'node:stream';
import { readDicomHeaderBy, type DicomHeader } from '../ingest/index.js';
import type { Storage } from '../storage/storage.js';
import type { StoredInstance } from './wado-repository.js';

/** A header larger than this is not read (the ingest limit for a DICOM header). */
const MAX_HEADER_BYTES = 16 * 1024 * 1024;

/** The instance's bytes from `start` to `end` inclusive (instance-relative), or all of them. */
export function readInstance(storage: Storage, instance: StoredInstance, range?: { start: number; end: number }): Promise<Readable> {
  const start = instance.offset + (range?.start ?? 0);
  const end = instance.offset + (range?.end ?? instance.size - 1);
  // A whole object is read without a range (the common case: an entry stored on its own).
  if (instance.offset === 0 && range === undefined) return storage.get(instance.storageKey);
  return storage.get(instance.storageKey, { start, end });
}

/** Every byte of a range, for the small ones (a header prefix, a bulk data value). */
export async function readBytes(storage: Storage, instance: StoredInstance, start: number, length: number): Promise<Buffer> {
  if (length <= 0) return Buffer.alloc(0);
  const stream = await readInstance(storage, instance, { start, end: Math.min(instance.size, start + length) - 1 });
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export type ReadHeader = Extract<DicomHeader, { ok: true }>;

/** The instance's header (everything before Pixel Data), or null when it cannot be read. */
export async function readHeader(storage: Storage, instance: StoredInstance): Promise<ReadHeader | null> {
  const header = await readDicomHeaderBy((want) => readBytes(storage, instance, 0, want), instance.size, MAX_HEADER_BYTES);
  return header.ok ? header : null;
}
