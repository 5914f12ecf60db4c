import { useEffect, useState } from 'react';
import { usePagination } from './use-pagination';

/** Typing pauses this long before the server is asked: one search per word, not per key. */
export const SEARCH_DEBOUNCE_MS = 300;

/** A searched, server-paged list: the page (0-based here, 1-based for the server) and the search sent. */
export function useSearchedPages() {
  const pagination = usePagination();
  const [search, setSearch] = useState('');
  const [q, setQ] = useState('');
  const { setPage } = pagination;
  // A new search starts on its first page.
  useEffect(() => {
    if (search === q) return undefined;
    const timer = window.setTimeout(() => {
      setQ(search);
      setPage(0);
    }, SEARCH_DEBOUNCE_MS);
    return () => window.clearTimeout(timer);
  }, [search, q, setPage]);
  return { pagination, search, setSearch, q, query: { q, page: pagination.page + 1, perPage: pagination.rowsPerPage } };
}
