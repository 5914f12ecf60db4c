// How a kept file is recorded, from its header: the one rule for an entry of an archive
// (ingest-upload.ts) and a file of a delivery (stored-file.ts), so both count alike.
import type { TDicomFields, TEntryKind } from '@portal/contract';
import type { DicomSummary } from './entry-analysis.js';
import { DICOMDIR_NOTE, NO_SOP_INSTANCE_UID } from './summary.js';

export interface LeafKind {
  kind: TEntryKind;
  /** Why a DICOM file is not (fully) an instance, or that it is a DICOMDIR; otherwise null. */
  reason: string | null;
  dicom: TDicomFields | null;
}

/** `header` is null for a file that is not DICOM at all. */
export function leafKind(header: DicomSummary | null): LeafKind {
  if (header === null) return { kind: 'other', reason: null, dicom: null };
  if (!header.ok) return { kind: 'dicom', reason: header.reason, dicom: null };
  // A DICOMDIR indexes other files and belongs to no study: keep it, but not as an instance.
  if (header.isDicomdir) return { kind: 'other', reason: DICOMDIR_NOTE, dicom: null };
  const reason = header.fields.sop_instance_uid === null ? NO_SOP_INSTANCE_UID : header.warning;
  return { kind: 'dicom', reason, dicom: header.fields };
}
