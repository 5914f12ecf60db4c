// Reading a stored instance through the storage abstraction (filesystem or S3 alike): ranges of
// its bytes as streams, and its header, read from ever longer prefixes (never the pixel data).
import { Readable } from 'node:stream';
import { readDicomHeaderBy, type DicomHeader } from '../ingest/index.js';
import type { Storage } from '../storage/storage.js';
import type { StoredInstance } from './wado-repository.js';

/** A header larger than this is not read (the ingest limit for a DICOM header). */
const MAX_HEADER_BYTES = 16 * 1024 * 1024;

/**
 * Ranges up to this size are read whole in one call rather than streamed: a series of small
 * instances (CT slices of 40–500 KiB) then costs one read each instead of a stream's hand-overs,
 * about a third of a series' retrieval time measured here (docs/performance.md, DICOMweb).
 */
export const READ_WHOLE_BYTES = 1024 * 1024;

/** The instance's bytes from `start` to `end` inclusive (instance-relative), or all of them: small ones whole, others streamed. */
export async function readInstance(storage: Storage, instance: StoredInstance, range?: { start: number; end: number }): Promise<AsyncIterable<Uint8Array> | Iterable<Uint8Array>> {
  const start = instance.offset + (range?.start ?? 0);
  const end = instance.offset + (range?.end ?? instance.size - 1);
  if (end < start) return [];
  if (end - start < READ_WHOLE_BYTES) return [await storage.getBytes(instance.storageKey, { start, end })];
  return storage.get(instance.storageKey, { start, end });
}

/** The whole instance read into `target` (exactly its size), for an answer laying out small instances together. */
export async function readInstanceInto(storage: Storage, instance: StoredInstance, target: Uint8Array): Promise<void> {
  await storage.getBytes(instance.storageKey, { start: instance.offset, end: instance.offset + instance.size - 1 }, target);
}

/** The instance's bytes from `start` to its end as a stream, for a reader that may stop early. */
export function streamInstance(storage: Storage, instance: StoredInstance, start: number): Promise<Readable> {
  if (start >= instance.size) return Promise.resolve(Readable.from([]));
  // By range, the end too: a stream that knows where it ends stops after its last byte, without
  // one more read to find the end of the file (a trip to the thread pool each).
  return storage.get(instance.storageKey, { start: instance.offset + start, end: instance.offset + instance.size - 1 });
}

/** Every byte of a range, for the small ones (a header prefix, a bulk data value). */
export async function readBytes(storage: Storage, instance: StoredInstance, start: number, length: number): Promise<Buffer> {
  const end = Math.min(instance.size, start + length) - 1;
  if (end < start) return Buffer.alloc(0);
  return storage.getBytes(instance.storageKey, { start: instance.offset + start, end: instance.offset + end });
}

export type ReadHeader = Extract<DicomHeader, { ok: true }>;

/** The instance's header (everything before Pixel Data), or null when it cannot be read. */
export async function readHeader(storage: Storage, instance: StoredInstance): Promise<ReadHeader | null> {
  const header = await readDicomHeaderBy((want) => readBytes(storage, instance, 0, want), instance.size, MAX_HEADER_BYTES);
  return header.ok ? header : null;
}
