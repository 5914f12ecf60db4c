// A folder row (kind 'folder': a completed delivery) is its member files. The catalogue lists and
// downloads it without knowing how it was filled: deliveries/ answers this, wired in by the
// composition (services.ts, app.ts), so files/ imports nothing of the rooms built on it.
import type { DeliveryFileRow, ProjectFileRow } from '../db/schema.js';

export interface FolderMembers {
  /** The files of the folder shown as `file` (whose access the caller checked), by path. */
  filesOf(file: ProjectFileRow): Promise<DeliveryFileRow[]>;
}
