import type { TProjectFile } from '@portal/contract';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { projectFilesPageQueryOptions, type FilesPageRequest } from '../../../api/get-project-files';
import { isInProgress } from '../processing-summary';

/** While an upload is still being processed, the list is refreshed this often. */
export const PROCESSING_POLL_MS = 3000;

export function pollWhileProcessing(files: TProjectFile[] | undefined): number | false {
  return files?.some(isInProgress) ? PROCESSING_POLL_MS : false;
}

/** The page of the files table the server was asked for, polled while any of its uploads is pending or processing. */
export function projectFilesPageWithPollingQueryOptions(projectId: number, request: FilesPageRequest) {
  return queryOptions({
    ...projectFilesPageQueryOptions(projectId, request),
    refetchInterval: (query) => pollWhileProcessing(query.state.data?.files),
    // The hand-written poll kept running in a background tab; so does this one.
    refetchIntervalInBackground: true,
    // A new search, sort or page keeps the last rows in view until its answer arrives.
    placeholderData: keepPreviousData,
  });
}

export function useProjectFilesPage(projectId: number, request: FilesPageRequest) {
  return useQuery(projectFilesPageWithPollingQueryOptions(projectId, request));
}
