// An infected file or entry is not served (issue 37): its download, a download link to it, a
// delivery's zip and DICOMweb retrieval are refused, with the signature named in words.
import { conflict } from '../errors/app-error.js';
import type { FileEntryRow, ProjectFileRow } from '../db/schema.js';

export function infectedMessage(what: 'file' | 'entry', signature: string | null): string {
  const named = signature ? ` (${signature})` : '';
  return `This ${what} is not served: the virus scan found it infected${named}. Delete it and ask the sender for a clean copy.`;
}

export function refuseInfectedFile(row: Pick<ProjectFileRow, 'scan_status' | 'scan_signature'>): void {
  if (row.scan_status === 'infected') throw conflict(infectedMessage('file', row.scan_signature));
}

/**
 * An infected entry is refused; so is any entry of an infected file that was not itself found
 * clean (the scan may have found the file infected as a whole, in bytes no entry holds alone).
 */
export function refuseInfectedEntry(file: Pick<ProjectFileRow, 'scan_status' | 'scan_signature'>, entry: Pick<FileEntryRow, 'scan_status' | 'scan_signature'>): void {
  if (entry.scan_status === 'infected') throw conflict(infectedMessage('entry', entry.scan_signature));
  if (file.scan_status === 'infected' && entry.scan_status !== 'clean') throw conflict(infectedMessage('entry', file.scan_signature));
}
