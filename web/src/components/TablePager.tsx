import TablePagination from '@mui/material/TablePagination';
import { PAGE_SIZES, type usePagination } from './use-pagination';

interface TablePagerProps {
  count: number;
  pagination: ReturnType<typeof usePagination>;
}

export function TablePager({ count, pagination }: TablePagerProps) {
  const lastPage = Math.max(0, Math.ceil(count / pagination.rowsPerPage) - 1);
  return (
    <TablePagination
      component="div"
      count={count}
      page={Math.min(pagination.page, lastPage)}
      rowsPerPage={pagination.rowsPerPage}
      rowsPerPageOptions={PAGE_SIZES}
      onPageChange={pagination.onPageChange}
      onRowsPerPageChange={pagination.onRowsPerPageChange}
      // On a phone the size selector, the range and the arrows do not fit one line.
      sx={{ '& .MuiTablePagination-toolbar': { flexWrap: 'wrap', justifyContent: 'flex-end' } }}
    />
  );
}
