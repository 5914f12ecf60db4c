import type { TProject } from '@portal/contract';
import type { ProjectRow } from '../db/schema.js';

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
