import Skeleton from '@mui/material/Skeleton';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import { PROJECT_COLUMNS } from './ProjectsTable';

export function ProjectsTableSkeleton() {
  return (
    <Table aria-label="Loading projects" aria-busy="true">
      <TableHead>
        <TableRow>
          {PROJECT_COLUMNS.map((column) => (
            <TableCell key={column}>{column}</TableCell>
          ))}
        </TableRow>
      </TableHead>
      <TableBody>
        {[0, 1, 2, 3, 4].map((row) => (
          <TableRow key={row}>
            {PROJECT_COLUMNS.map((column) => (
              <TableCell key={column}>
                <Skeleton variant="text" />
              </TableCell>
            ))}
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}
