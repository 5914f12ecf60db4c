import { useState } from 'react';
import { useDebouncedValue } from '../lib/use-debounced-value';
import { usePagination } from './use-pagination';
import { SEARCH_DEBOUNCE_MS } from './use-searched-pages';

export type SortOrder = 'asc' | 'desc';

/**
 * A table searched, sorted and paged by the server (the files table, the projects list): the
 * search box, the sorted column, the page. Any change of what is asked for goes back to the first
 * page; a page emptied by deletions falls back to the last one there is.
 */
export function useTableQuery<Sort extends string>() {
  const pagination = usePagination();
  const [search, setSearch] = useState('');
  const q = useDebouncedValue(search.trim(), SEARCH_DEBOUNCE_MS);
  const [sort, setSortState] = useState<{ sort: Sort | null; order: SortOrder }>({ sort: null, order: 'asc' });
  // The debounced search settles after a render; the page goes back to 1 when it does.
  const [askedQ, setAskedQ] = useState(q);
  if (askedQ !== q) {
    setAskedQ(q);
    pagination.setPage(0);
  }
  return {
    pagination,
    search,
    setSearch,
    /** The search as sent: trimmed and settled. */
    q,
    sort,
    /** A header clicked once sorts ascending, again descending. */
    sortBy: (column: Sort) => {
      setSortState((current) => ({ sort: column, order: current.sort === column && current.order === 'asc' ? 'desc' : 'asc' }));
      pagination.setPage(0);
    },
    /** Called with the server's total: a page past the end (after deletions) moves to the last page. */
    clampTo: (total: number) => {
      const lastPage = Math.max(0, Math.ceil(total / pagination.rowsPerPage) - 1);
      if (pagination.page > lastPage) pagination.setPage(lastPage);
    },
  };
}

export type TableQuery<Sort extends string> = ReturnType<typeof useTableQuery<Sort>>;
