import { listResponse, ZFilesList, ZListPage, ZProjectFile, type TProjectFile } from '@portal/contract';
import { queryOptions } from '@tanstack/react-query';
import { api } from '../lib/api-answer';
import { queryKeys } from './query-keys';

const ZProjectFiles = listResponse(ZProjectFile);

export async function getProjectFiles(projectId: number): Promise<TProjectFile[]> {
  const { data } = await api.get(ZProjectFiles, '/study-petitions-files', { params: { study_petition_id: projectId } });
  return data;
}

/** The files of one project, read by the project page (which adds polling) and the projects tree. */
export function projectFilesQueryOptions(projectId: number) {
  return queryOptions({ queryKey: queryKeys.projectFiles(projectId), queryFn: () => getProjectFiles(projectId) });
}

export type FileSort = 'file' | 'filesize' | 'created_at' | 'updated_at';
export type FileStatus = TProjectFile['processing']['status'];
export type FileReviewState = NonNullable<TProjectFile['review']['state']>;

/** What the files table asks the server for (docs/api.md 'Finding files and studies'). */
export interface FilesFilter {
  q: string;
  status: FileStatus | '';
  /** Issue 35: the review state, '' for any. */
  review: FileReviewState | '';
  sort: FileSort | null;
  order: 'asc' | 'desc';
}

export interface FilesPageRequest extends FilesFilter {
  /** 1-based, as the server counts. */
  page: number;
  perPage: number;
}

export interface FilesPage {
  files: TProjectFile[];
  /** Every file matching the search and filter, not only this page's. */
  total: number;
}

function filterParams(filter: FilesFilter): Record<string, string> {
  const params: Record<string, string> = {};
  if (filter.q !== '') params.q = filter.q;
  if (filter.status !== '') params.status = filter.status;
  if (filter.review !== '') params.review = filter.review;
  if (filter.sort !== null) Object.assign(params, { sort: filter.sort, order: filter.order });
  return params;
}

/** Asked for a page, the server always says how many files match; without it the pager could not count. */
const ZFilesPage = ZFilesList.extend({ page: ZListPage });

export async function getProjectFilesPage(projectId: number, request: FilesPageRequest): Promise<FilesPage> {
  const { data, page } = await api.get(ZFilesPage, '/study-petitions-files', {
    params: { study_petition_id: projectId, ...filterParams(request), page: request.page, per_page: request.perPage },
  });
  return { files: data, total: page.total };
}

/** The server's largest page: 'Select all N files' reads the matching files in as few calls as it can. */
export const LARGEST_PAGE = 500;

/**
 * Every file matching the search and filter (id and name only are kept), read page by page in the
 * order by id, so a file added while reading cannot shift a later page onto one already read.
 */
export async function getMatchingFiles(projectId: number, filter: FilesFilter): Promise<Array<Pick<TProjectFile, 'id' | 'file'>>> {
  const byId: FilesFilter = { ...filter, sort: null };
  const found: Array<Pick<TProjectFile, 'id' | 'file'>> = [];
  for (let page = 1; ; page += 1) {
    const answer = await getProjectFilesPage(projectId, { ...byId, page, perPage: LARGEST_PAGE });
    found.push(...answer.files.map(({ id, file }) => ({ id, file })));
    if (answer.files.length < LARGEST_PAGE || found.length >= answer.total) return found;
  }
}

/** One page of the project page's files table; its key starts with the file list's, so every invalidation reaches it. */
export function projectFilesPageQueryOptions(projectId: number, request: FilesPageRequest) {
  return queryOptions({
    queryKey: queryKeys.projectFilesPage(projectId, request),
    queryFn: () => getProjectFilesPage(projectId, request),
  });
}
