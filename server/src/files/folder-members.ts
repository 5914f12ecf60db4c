// A folder row (kind 'folder': a completed delivery) is its member files. The catalogue lists and
// downloads it without knowing how it was filled: deliveries/ answers this, wired in by the
// composition (services.ts, app.ts), so files/ imports nothing of the rooms built on it.
import type { DeliveryFileRow, ProjectFileRow } from '../db/schema.js';

/** What a folder's zip needs of each file: where its bytes are. */
export type FolderFile = Pick<DeliveryFileRow, 'relative_path' | 'size' | 'storage_key' | 'storage_offset' | 'created_at'>;

export interface FolderMembers {
  /**
   * The files of the folder shown as `file` (whose access the caller checked), by path: in a
   * project that removes patient identity, its de-identified instances (what processing kept).
   */
  filesOf(file: ProjectFileRow): Promise<FolderFile[]>;
}
