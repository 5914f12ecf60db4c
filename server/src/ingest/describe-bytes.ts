// A small DICOM upload's SHA-256 and description from its bytes: what describe-worker.ts computes
// on its thread and describe-thread.ts computes here when there is no thread, one function so
// that both answer the same.
import { createHash } from 'node:crypto';
import { describeStoredBytes, type StoredFileKind } from './stored-file.js';

export interface DescribedBytes {
  sha256: string;
  described: StoredFileKind;
}

export function describeBytesHere(bytes: Uint8Array, maxDicomHeaderBytes: number): DescribedBytes {
  return { sha256: createHash('sha256').update(bytes).digest('hex'), described: describeStoredBytes(bytes, maxDicomHeaderBytes) };
}
