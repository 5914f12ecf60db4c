// A file that is already stored on its own (a file of a delivery): what it is, read from its first
// bytes and, for DICOM, its header, without hashing it again (its SHA-256 was computed on arrival).
// Archives are not opened here: the caller hands them to ingestUpload, like a nested archive. (A
// file stored inside a delivery's bundle is described on the extraction worker: stored-members.ts.)
import { DETECT_BYTES, detectKind, isArchiveKind } from './detect/detect-kind.js';
import { readDicomHeader, readDicomHeaderSync } from './dicom/dicom-header.js';
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
