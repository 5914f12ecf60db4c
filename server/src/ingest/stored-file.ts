// A file that is already stored on its own (a file of a delivery): what it is, read from its first
// bytes and, for DICOM, its header, without hashing it again (its SHA-256 was computed on arrival).
// Archives are not opened here: the caller hands them to ingestUpload, like a nested archive.
import type { TDicomFields, TEntryKind } from '@portal/contract';
import { DETECT_BYTES, detectKind, isArchiveKind } from './detect/detect-kind.js';
import { readDicomHeader } from './dicom/dicom-header.js';
import { summarizeHeader } from './entry-analysis.js';
import { readHead } from './hash-file.js';

export type StoredFileKind = { archive: true } | { archive: false; kind: TEntryKind; reason: string | null; dicom: TDicomFields | null };

export async function describeStoredFile(file: string, maxDicomHeaderBytes: number): Promise<StoredFileKind> {
  const kind = detectKind(await readHead(file, DETECT_BYTES));
  if (isArchiveKind(kind)) return { archive: true };
  if (kind !== 'dicom') return { archive: false, kind: 'other', reason: null, dicom: null };
  // The same rules as a DICOM entry of an archive (ingest-upload.ts, emitLeaf).
  const header = summarizeHeader(await readDicomHeader(file, maxDicomHeaderBytes));
  if (!header.ok) return { archive: false, kind: 'dicom', reason: header.reason, dicom: null };
  if (header.isDicomdir) return { archive: false, kind: 'other', reason: null, dicom: null };
  const reason = header.fields.sop_instance_uid === null ? 'DICOM without SOP Instance UID' : header.warning;
  return { archive: false, kind: 'dicom', reason, dicom: header.fields };
}
