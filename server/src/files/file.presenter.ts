import type { TProcessingSummary, TProjectFile } from '@portal/contract';
import { ZProcessingStatus } from '@portal/contract';
import type { FileRow } from './files.repository.js';

/** A file as the API shows it: no storage key, no internal columns. */
export function presentFile(row: FileRow): TProjectFile {
  return {
    id: row.id,
    file: row.file,
    filesize: Number(row.filesize),
    studypetitionid: row.project_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
    sha256: row.sha256,
    kind: row.kind === 'dicom' || row.kind === 'folder' ? row.kind : 'archive',
    duplicate_of: row.duplicate_of === null ? null : Number(row.duplicate_of),
    processing: {
      status: ZProcessingStatus.parse(row.processing_status),
      error: row.processing_error,
      summary: row.processing_summary === null ? null : (JSON.parse(row.processing_summary) as TProcessingSummary),
    },
  };
}
