import { ZFileContentsResponse, type TEntryKind, type TFileContents } from '@portal/contract';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { queryKeys } from '../../../api/query-keys';
import { apiClient } from '../../../lib/api-client';

export interface ContentsQuery {
  offset: number;
  limit: number;
  kind?: TEntryKind | undefined;
}

/** Shown when the answer is not the contract's shape: a server and a page of different versions. */
export const UNREADABLE_CONTENTS = 'The server answered with contents this page cannot read; reload the page and try again';

/** The contents as the server sends them: {data: {entries, page, studies}}, read with the contract's schema. */
export async function getFileContents(fileId: number, query: ContentsQuery): Promise<TFileContents> {
  const { data } = await apiClient.get<unknown>(`/study-petitions-files/${fileId}/contents`, { params: query });
  const answer = ZFileContentsResponse.safeParse(data);
  if (!answer.success) throw new Error(UNREADABLE_CONTENTS);
  return answer.data.data;
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
