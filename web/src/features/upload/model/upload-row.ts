import type { UserFacingError } from '../../../lib/error-mapping';
import type { FileKind } from '../file-filters';

/**
 * ready: picked, not sent in this dialog; queued: waiting for a free slot; uploading: bytes on the way;
 * finishing: every byte sent, the server is checking and storing it; done: a file of the project;
 * paused: stopped by the user with the server's part kept, so that going on resumes it (the tray).
 */
export type RowStatus = 'ready' | 'queued' | 'uploading' | 'finishing' | 'paused' | 'done' | 'failed' | 'cancelled';

export interface UploadRow {
  key: string;
  path: string;
  file: File;
  kind: FileKind;
  checked: boolean;
  status: RowStatus;
  /** Bytes the server has or is receiving: after a resume this starts where the server stopped. */
  sent: number;
  resumed: boolean;
  error: UserFacingError | null;
  retryable: boolean;
  fileId: number | null;
  /** The picked folder's name for a file of a folder (sent as one delivery); null for a picked file. */
  folder: string | null;
  /** How many files share this one's bundle (itself included); 0 when it travels alone. */
  bundled: number;
  /** The send (a file alone or a bundle) this row was last part of; rows that failed together retry together. */
  send: number | null;
}

/** One upload: a file alone, or a bundle of a folder's small files that share its state. */
export interface Send {
  id: number;
  keys: string[];
  folder: string | null;
  bundle: boolean;
}
