// A new upload or delivery that names the rejected file it answers (issue 35, `replaces`): in the
// transaction that makes its row, the old one becomes 'replaced' and points to it. Here, beside
// the rows, because every path that makes a file row (an upload's commit, a delivery's completion)
// must do it the same way; the review room reads and decides the rest.
import type { Db } from '../db/database.js';
import type { ProjectFileRow } from '../db/schema.js';
import { unprocessable } from '../errors/app-error.js';

/** What a person reads when `replaces` names something that cannot be replaced. */
export function notReplaceable(fileId: number): string {
  return (
    `File ${fileId} cannot be replaced: only a rejected upload or delivery of the same project can be, and only once. ` +
    'Check the file named in replaces, or send the upload without it'
  );
}

/** The live, rejected, not yet replaced file `fileId` of `projectId`, or undefined. */
export async function findReplaceable(db: Db, projectId: number, fileId: number): Promise<{ id: number } | undefined> {
  return db
    .selectFrom('project_files')
    .select('id')
    .where('id', '=', fileId)
    .where('project_id', '=', projectId)
    .where('deleted_at', 'is', null)
    .where('review_state', '=', 'rejected')
    .executeTakeFirst();
}

/** Marks `row.replaces` replaced by `row`, or refuses (422) the whole transaction. */
export async function markReplaced(trx: Db, row: Pick<ProjectFileRow, 'id' | 'project_id' | 'replaces'>): Promise<void> {
  if (row.replaces === null) return;
  const updated = await trx
    .updateTable('project_files')
    .set({ review_state: 'replaced', replaced_by: row.id })
    .where('id', '=', row.replaces)
    .where('project_id', '=', row.project_id)
    .where('deleted_at', 'is', null)
    .where('review_state', '=', 'rejected')
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) !== 1) throw unprocessable(notReplaceable(row.replaces));
}
