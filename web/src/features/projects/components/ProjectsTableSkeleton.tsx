import Skeleton from '@mui/material/Skeleton';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import { projectColumns } from './project-columns';

/** Spec §2: while the list loads, a skeleton of the table, with the columns it will have. */
export function ProjectsTableSkeleton({ showCompany }: { showCompany: boolean }) {
  const columns = projectColumns(showCompany);
  return (
    <Table aria-label="Loading projects" aria-busy="true" sx={{ tableLayout: 'fixed' }}>
      <colgroup>
        {columns.map((column) => (
          <col key={column.label} style={column.width ? { width: column.width } : undefined} />
        ))}
      </colgroup>
      <TableHead>
        <TableRow>
          {columns.map((column) => (
            <TableCell key={column.label}>{column.label}</TableCell>
          ))}
        </TableRow>
      </TableHead>
      <TableBody>
        {[0, 1, 2, 3, 4].map((row) => (
          <TableRow key={row}>
            {columns.map((column) => (
              <TableCell key={column.label}>
                <Skeleton variant="text" />
              </TableCell>
            ))}
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}
