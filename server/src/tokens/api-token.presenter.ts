// A token as its owner and their administrators see it: never its hash, never its secret (the
// creation's answer adds the secret itself, once).
import type { TApiToken } from '@portal/contract';
import type { ListedToken } from './tokens.repository.js';

export function projectIdsOf(row: { project_ids: string | null }): number[] | undefined {
  return row.project_ids === null ? undefined : (JSON.parse(row.project_ids) as number[]);
}

export function presentApiToken(row: ListedToken, projectNames: ReadonlyMap<number, string>): TApiToken {
  const ids = projectIdsOf(row);
  return {
    id: row.id,
    name: row.name,
    scope: row.scope,
    // A project deleted since keeps its place in the limit (it is reached no more): shown by its id.
    projects: ids ? ids.map((id) => ({ id, name: projectNames.get(id) ?? `Project ${id}` })) : null,
    created_at: row.created_at,
    expires_at: row.expires_at,
    last_used_at: row.last_used_at,
    last_used_ip: row.last_used_ip,
    user: { id: row.user_id, username: row.username, company_id: row.company_id },
  };
}
