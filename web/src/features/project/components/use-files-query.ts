import { useState } from 'react';
import type { FileReviewState, FilesFilter, FilesPageRequest, FileSort, FileStatus } from '../../../api/get-project-files';
import { useTableQuery } from '../../../components/use-table-query';

/** The files table's search, filters, sort and page (components/use-table-query.ts) and its two filters. */
export function useFilesQuery() {
  const table = useTableQuery<FileSort>();
  const { q, sort, pagination } = table;
  const [status, setStatusState] = useState<FileStatus | ''>('');
  const [review, setReviewState] = useState<FileReviewState | ''>('');

  const filter: FilesFilter = { q, status, review, ...sort };
  const request: FilesPageRequest = { ...filter, page: pagination.page + 1, perPage: pagination.rowsPerPage };
  return {
    ...table,
    filter,
    request,
    status,
    setStatus: (next: FileStatus | '') => {
      setStatusState(next);
      pagination.setPage(0);
    },
    review,
    setReview: (next: FileReviewState | '') => {
      setReviewState(next);
      pagination.setPage(0);
    },
    filtered: q !== '' || status !== '' || review !== '',
  };
}

export type FilesQuery = ReturnType<typeof useFilesQuery>;
