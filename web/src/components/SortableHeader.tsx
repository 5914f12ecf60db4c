import TableCell from '@mui/material/TableCell';
import TableSortLabel from '@mui/material/TableSortLabel';
import type { SortOrder } from './use-table-query';

interface SortableHeaderProps<Sort extends string> {
  label: string;
  /** The column's sort key; null: a column the server does not sort by (Actions). */
  sortKey: Sort | null;
  current: { sort: Sort | null; order: SortOrder };
  onSort: (sort: Sort) => void;
  align?: 'left' | 'right';
}

/** A column header of a server-sorted table: a button that sorts by it, and says which way it sorts. */
export function SortableHeader<Sort extends string>({ label, sortKey, current, onSort, align = 'left' }: SortableHeaderProps<Sort>) {
  if (sortKey === null) {
    return <TableCell align={align}>{label}</TableCell>;
  }
  const active = current.sort === sortKey;
  return (
    <TableCell align={align} sortDirection={active ? current.order : false}>
      <TableSortLabel active={active} direction={active ? current.order : 'asc'} onClick={() => onSort(sortKey)}>
        {label}
      </TableSortLabel>
    </TableCell>
  );
}
