import { useState } from 'react';
import { useTableQuery } from '../../../components/use-table-query';
import type { ProjectSort, ProjectsPageRequest } from '../api/get-projects';

/** The projects list's search, sort, page (components/use-table-query.ts, as the files table) and company filter. */
export function useProjectsQuery() {
  const table = useTableQuery<ProjectSort>();
  const { q, sort, pagination } = table;
  const [companyId, setCompanyIdState] = useState<number | null>(null);
  const request: ProjectsPageRequest = { q, ...sort, companyId, page: pagination.page + 1, perPage: pagination.rowsPerPage };
  return {
    ...table,
    request,
    companyId,
    setCompanyId: (next: number | null) => {
      setCompanyIdState(next);
      pagination.setPage(0);
    },
    filtered: q !== '' || companyId !== null,
  };
}

export type ProjectsQuery = ReturnType<typeof useProjectsQuery>;
