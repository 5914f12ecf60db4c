import { listResponse, ZListPage, ZProjectCompany, ZProjectsList, type TListedProject, type TProjectCompany, type TProjectSort } from '@portal/contract';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { queryKeys } from '../../../api/query-keys';
import { api } from '../../../lib/api-answer';

export type ProjectSort = TProjectSort;

/** What the projects list asks the server for (docs/api.md 'The projects list'). */
export interface ProjectsPageRequest {
  q: string;
  sort: ProjectSort | null;
  order: 'asc' | 'desc';
  /** null: every company the user sees. */
  companyId: number | null;
  /** 1-based, as the server counts. */
  page: number;
  perPage: number;
}

export interface ProjectsPage {
  projects: TListedProject[];
  /** Every project matching the search and filter, not only this page's. */
  total: number;
}

/** Asked for a page, the server always says how many projects match. */
const ZProjectsPage = ZProjectsList.extend({ page: ZListPage });

export async function getProjectsPage(request: ProjectsPageRequest): Promise<ProjectsPage> {
  const params: Record<string, string | number> = { page: request.page, per_page: request.perPage };
  if (request.q !== '') params.q = request.q;
  if (request.sort !== null) Object.assign(params, { sort: request.sort, order: request.order });
  if (request.companyId !== null) params.company_id = request.companyId;
  const { data, page } = await api.get(ZProjectsPage, '/study-petitions', { params });
  return { projects: data, total: page.total };
}

/** One page of the projects list; under the projects' key, so every change of a project refreshes it. */
export function useProjectsPage(request: ProjectsPageRequest) {
  return useQuery({
    queryKey: [...queryKeys.projects, 'page', request],
    queryFn: () => getProjectsPage(request),
    // The table keeps its rows (and its size) while the next page is read.
    placeholderData: keepPreviousData,
  });
}

const ZCompanies = listResponse(ZProjectCompany);

async function getProjectCompanies(): Promise<TProjectCompany[]> {
  return (await api.get(ZCompanies, '/study-petitions-companies')).data;
}

export function projectCompaniesQueryOptions() {
  return queryOptions({ queryKey: [...queryKeys.projects, 'companies'], queryFn: getProjectCompanies });
}

/** The companies a SysUser or SysAdmin can filter the list by; asked only when `enabled`. */
export function useProjectCompanies(enabled: boolean) {
  return useQuery({ ...projectCompaniesQueryOptions(), enabled });
}

/** Every project the user sees, unpaged (the spec's call): for pickers such as the API token form's. */
async function getAllProjects(): Promise<TListedProject[]> {
  return (await api.get(ZProjectsList, '/study-petitions')).data;
}

export function useProjects() {
  return useQuery({ queryKey: [...queryKeys.projects, 'all'], queryFn: getAllProjects });
}
