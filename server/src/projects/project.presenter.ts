import type { TListedProject, TProject } from '@portal/contract';
import type { ProjectRow } from '../db/schema.js';
import type { ListedProjectRow } from './projects-list.repository.js';

export function presentProject(row: ProjectRow): TProject {
  return {
    id: row.id,
    name: row.name,
    valid: row.valid === 1,
    status: row.status,
    company_id: row.company_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function presentListedProject(row: ListedProjectRow): TListedProject {
  return { ...presentProject(row), companyname: row.companyname, files: row.files, studies: row.studies, last_upload_at: row.last_upload_at };
}
