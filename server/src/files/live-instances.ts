// The DICOM instances a project shows, one rule for every reader of them (the Studies view, the
// DICOMweb searches): entries of live uploads of a live project, of kind dicom, with a study and a
// SOP Instance UID, within the caller's company scope.
import type { Db } from '../db/database.js';
import type { Scope } from '../projects/index.js';

/** The query over `file_entries as e` joined to `project_files as f` and `projects as p`, to filter and group further. */
export function liveInstances(db: Db, projectId: number, scope: Scope) {
  let query = db
    .selectFrom('file_entries as e')
    .innerJoin('project_files as f', 'f.id', 'e.file_id')
    .innerJoin('projects as p', 'p.id', 'f.project_id')
    .where('f.project_id', '=', projectId)
    .where('f.deleted_at', 'is', null)
    .where('p.deleted_at', 'is', null)
    .where('e.kind', '=', 'dicom')
    .where('e.study_instance_uid', 'is not', null)
    .where('e.sop_instance_uid', 'is not', null);
  if (scope !== 'all') query = query.where('f.company_id', '=', scope).where('e.company_id', '=', scope);
  return query;
}
