import { useState, type ChangeEvent } from 'react';

/** Spec §9: tables offer 5, 10 or 25 rows, 5 by default. */
export const PAGE_SIZES = [5, 10, 25];
export const DEFAULT_PAGE_SIZE = 5;

export function usePagination() {
  const [page, setPage] = useState(0);
  const [rowsPerPage, setRowsPerPage] = useState(DEFAULT_PAGE_SIZE);
  return {
    page,
    rowsPerPage,
    setPage,
    onPageChange: (_event: unknown, next: number) => setPage(next),
    onRowsPerPageChange: (event: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => {
      setRowsPerPage(Number(event.target.value));
      setPage(0);
    },
    /** The rows of the current page; a page left empty by a deletion falls back to the last one. */
    slice<T>(rows: readonly T[]): T[] {
      const lastPage = Math.max(0, Math.ceil(rows.length / rowsPerPage) - 1);
      const current = Math.min(page, lastPage);
      return rows.slice(current * rowsPerPage, current * rowsPerPage + rowsPerPage);
    },
  };
}
