import type { TProjectFile } from '@portal/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { projectFilesQueryOptions } from '../../../api/get-project-files';
import { isInProgress } from '../processing-summary';

/** While an upload is still being processed, the list is refreshed this often. */
export const PROCESSING_POLL_MS = 3000;

export function pollWhileProcessing(files: TProjectFile[] | undefined): number | false {
  return files?.some(isInProgress) ? PROCESSING_POLL_MS : false;
}

/** The project page's file list: the shared query, polled while any upload is pending or processing. */
export function projectFilesWithPollingQueryOptions(projectId: number) {
  return queryOptions({
    ...projectFilesQueryOptions(projectId),
    refetchInterval: (query) => pollWhileProcessing(query.state.data),
    // The hand-written poll kept running in a background tab; so does this one.
    refetchIntervalInBackground: true,
  });
}

export function useProjectFiles(projectId: number) {
  return useQuery(projectFilesWithPollingQueryOptions(projectId));
}
