import { useState } from 'react';
import type { FileReviewState, FilesFilter, FilesPageRequest, FileSort, FileStatus } from '../../../api/get-project-files';
import { usePagination } from '../../../components/use-pagination';
import { SEARCH_DEBOUNCE_MS } from '../../../components/use-searched-pages';
import { useDebouncedValue } from '../../../lib/use-debounced-value';

/**
 * The files table's search, filter, sort and page. Any change of what is asked for goes back to
 * the first page; a page emptied by deletions falls back to the last one there is.
 */
export function useFilesQuery() {
  const pagination = usePagination();
  const [search, setSearch] = useState('');
  const q = useDebouncedValue(search.trim(), SEARCH_DEBOUNCE_MS);
  const [status, setStatusState] = useState<FileStatus | ''>('');
  const [review, setReviewState] = useState<FileReviewState | ''>('');
  const [sort, setSortState] = useState<{ sort: FileSort | null; order: 'asc' | 'desc' }>({ sort: null, order: 'asc' });
  // The debounced search settles after a render; the page goes back to 1 when it does.
  const [askedQ, setAskedQ] = useState(q);
  if (askedQ !== q) {
    setAskedQ(q);
    pagination.setPage(0);
  }

  const filter: FilesFilter = { q, status, review, ...sort };
  const request: FilesPageRequest = { ...filter, page: pagination.page + 1, perPage: pagination.rowsPerPage };
  return {
    filter,
    request,
    pagination,
    search,
    setSearch,
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
    sort,
    /** A header clicked once sorts ascending, again descending. */
    sortBy: (column: FileSort) => {
      setSortState((current) => ({ sort: column, order: current.sort === column && current.order === 'asc' ? 'desc' : 'asc' }));
      pagination.setPage(0);
    },
    filtered: q !== '' || status !== '' || review !== '',
    /** Called with the server's total: a page past the end (after deletions) moves to the last page. */
    clampTo(total: number) {
      const lastPage = Math.max(0, Math.ceil(total / pagination.rowsPerPage) - 1);
      if (pagination.page > lastPage) pagination.setPage(lastPage);
    },
  };
}

export type FilesQuery = ReturnType<typeof useFilesQuery>;
