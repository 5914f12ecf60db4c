import { ZFileContentsResponse, type TEntryKind, type TFileContents } from '@portal/contract';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { queryKeys } from '../../../api/query-keys';
import { api } from '../../../lib/api-answer';

export interface ContentsQuery {
  offset: number;
  limit: number;
  kind?: TEntryKind | undefined;
  /** Only the entries flagged for review. The server pages and orders them (a file may hold 100,000 entries). */
  review?: boolean | undefined;
}

/** The contents as the server sends them: {data: {entries, page, studies}}, read with the contract's schema. */
export async function getFileContents(fileId: number, query: ContentsQuery): Promise<TFileContents> {
  const { review, ...rest } = query;
  const params = review ? { ...rest, review: 1 } : rest;
  const { data } = await api.get(ZFileContentsResponse, `/study-petitions-files/${fileId}/contents`, { params });
  return data;
}

export function fileContentsQueryOptions(fileId: number, query: ContentsQuery) {
  return queryOptions({
    queryKey: [...queryKeys.fileContents(fileId), query] as const,
    queryFn: () => getFileContents(fileId, query),
    // The previous page stays on screen under the progress bar while the next one loads, as before.
    placeholderData: keepPreviousData,
  });
}

export function useFileContents(fileId: number, query: ContentsQuery) {
  return useQuery(fileContentsQueryOptions(fileId, query));
}
