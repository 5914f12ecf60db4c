// A file that is already stored on its own (a file of a delivery): what it is, read from its first
// bytes and, for DICOM, its header, without hashing it again (its SHA-256 was computed on arrival).
// Archives are not opened here: the caller hands them to ingestUpload, like a nested archive.
import { DETECT_BYTES, detectKind, isArchiveKind } from './detect/detect-kind.js';
import type { FileHandle } from 'node:fs/promises';
import { readDicomHeader, readDicomHeaderAt, readDicomHeaderSync } from './dicom/dicom-header.js';
import { summarizeHeader } from './entry-analysis.js';
import { readHead } from './hash-file.js';
import { leafKind, type LeafKind } from './leaf-kind.js';

export type StoredFileKind = { archive: true } | ({ archive: false } & LeafKind);

export async function describeStoredFile(file: string, maxDicomHeaderBytes: number): Promise<StoredFileKind> {
  const kind = detectKind(await readHead(file, DETECT_BYTES));
  if (isArchiveKind(kind)) return { archive: true };
  if (kind !== 'dicom') return { archive: false, ...leafKind(null) };
  // The same rules as a DICOM entry of an archive (ingest-upload.ts, emitLeaf).
  return { archive: false, ...leafKind(summarizeHeader(await readDicomHeader(file, maxDicomHeaderBytes))) };
}

/** A bundle's member is read this much at once: its first bytes and, for a small DICOM file, its header. */
export const MEMBER_FIRST_READ = 64 * 1024;

/**
 * As describeStoredFile, for a file stored inside a larger object (a member of a delivery's tar
 * bundle): `size` bytes from `offset` of the open `handle`, which stays open for the next member.
 * `first` holds its first min(size, MEMBER_FIRST_READ) bytes, read by the caller (a bundle's job
 * reads many files' at once); a header longer than that is read on from `handle`. Nothing of
 * `first` outlives the call (the description keeps decoded fields, not the bytes).
 */
export async function describeStoredMember(handle: FileHandle, offset: number, size: number, maxDicomHeaderBytes: number, first: Uint8Array): Promise<StoredFileKind> {
  const kind = detectKind(first.subarray(0, DETECT_BYTES));
  if (isArchiveKind(kind)) return { archive: true };
  if (kind !== 'dicom') return { archive: false, ...leafKind(null) };
  return { archive: false, ...leafKind(summarizeHeader(await readDicomHeaderAt(handle, offset, size, maxDicomHeaderBytes, first))) };
}

/**
 * The same, for a whole file already in memory (a small upload read whole on arrival): nothing is
 * read from disk. The synchronous reader is handed every byte of the file as its head, so it never
 * reads from its descriptor (-1: none).
 */
export function describeStoredBytes(bytes: Uint8Array, maxDicomHeaderBytes: number): StoredFileKind {
  const kind = detectKind(bytes.subarray(0, DETECT_BYTES));
  if (isArchiveKind(kind)) return { archive: true };
  if (kind !== 'dicom') return { archive: false, ...leafKind(null) };
  return { archive: false, ...leafKind(summarizeHeader(readDicomHeaderSync(-1, bytes.length, maxDicomHeaderBytes, bytes))) };
}
