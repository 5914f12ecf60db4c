import type { TProject } from '@portal/contract';
import Link from '@mui/material/Link';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import useMediaQuery from '@mui/material/useMediaQuery';
import type { Theme } from '@mui/material/styles';
import { Link as RouterLink } from 'react-router';
import { LocalDate } from '../../../components/LocalDate';
import { TablePager } from '../../../components/TablePager';
import { usePagination } from '../../../components/use-pagination';
import { ProjectActions } from './ProjectActions';
import { ProjectCards } from './ProjectCards';
import { ProjectsEmptyState } from './ProjectsEmptyState';

export const PROJECT_COLUMNS = ['Name', 'Date Created', 'Date Updated', 'Actions'] as const;

export interface ProjectsTableProps {
  projects: TProject[];
  onEdit: (project: TProject) => void;
  onDelete: (project: TProject) => void;
  onAdd: () => void;
}

/** The projects as a table, or below the `sm` breakpoint as cards (no sideways scrolling on a phone). */
export function ProjectsTable({ projects, onEdit, onDelete, onAdd }: ProjectsTableProps) {
  const pagination = usePagination();
  const phone = useMediaQuery((theme: Theme) => theme.breakpoints.down('sm'), { noSsr: true });
  const shown = pagination.slice(projects);
  const pager = projects.length > 0 && <TablePager count={projects.length} pagination={pagination} />;

  if (phone) {
    return (
      <>
        {projects.length === 0 ? <ProjectsEmptyState onAdd={onAdd} /> : <ProjectCards projects={shown} onEdit={onEdit} onDelete={onDelete} />}
        {pager}
      </>
    );
  }
  return (
    <>
      <TableContainer>
        <Table aria-label="Projects">
          <TableHead>
            <TableRow>
              {PROJECT_COLUMNS.map((column) => (
                <TableCell key={column} align={column === 'Actions' ? 'right' : 'left'}>
                  {column}
                </TableCell>
              ))}
            </TableRow>
          </TableHead>
          <TableBody>
            {projects.length === 0 && (
              <TableRow>
                <TableCell colSpan={PROJECT_COLUMNS.length} sx={{ borderBottom: 0 }}>
                  <ProjectsEmptyState onAdd={onAdd} />
                </TableCell>
              </TableRow>
            )}
            {shown.map((project) => (
              <TableRow key={project.id} hover>
                <TableCell sx={{ overflowWrap: 'anywhere' }}>
                  <Link component={RouterLink} to={`/study/${project.id}`} underline="hover" sx={{ fontWeight: 600 }}>
                    {project.name}
                  </Link>
                </TableCell>
                <TableCell sx={{ whiteSpace: 'nowrap' }}>
                  <LocalDate value={project.created_at} />
                </TableCell>
                <TableCell sx={{ whiteSpace: 'nowrap' }}>
                  <LocalDate value={project.updated_at} />
                </TableCell>
                <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                  <ProjectActions project={project} onEdit={onEdit} onDelete={onDelete} />
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </TableContainer>
      {pager}
    </>
  );
}
