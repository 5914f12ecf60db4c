import type { TEntryKind, TFileContents } from '@portal/contract';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { queryKeys } from '../../../api/query-keys';
import { apiClient } from '../../../lib/api-client';

export interface ContentsQuery {
  offset: number;
  limit: number;
  kind?: TEntryKind | undefined;
}

export async function getFileContents(fileId: number, query: ContentsQuery): Promise<TFileContents> {
  const { data } = await apiClient.get<TFileContents | { data: TFileContents }>(`/study-petitions-files/${fileId}/contents`, {
    params: query,
  });
  // The server wraps answers in {data} (DESIGN §4); the contract describes the bare contents, so both are read.
  return 'data' in data ? data.data : data;
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
