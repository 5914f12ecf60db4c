import type { TListedProject, TProject } from '@portal/contract';
import Link from '@mui/material/Link';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import useMediaQuery from '@mui/material/useMediaQuery';
import type { Theme } from '@mui/material/styles';
import { Link as RouterLink } from 'react-router';
import { LocalDate } from '../../../components/LocalDate';
import { SortableHeader } from '../../../components/SortableHeader';
import { TablePager } from '../../../components/TablePager';
import { LastUpload } from './LastUpload';
import { ProjectActions } from './ProjectActions';
import { ProjectCards } from './ProjectCards';
import { projectColumns } from './project-columns';
import { ProjectsEmptyState } from './ProjectsEmptyState';
import type { ProjectsQuery } from './use-projects-query';

export interface ProjectsTableProps {
  /** This page's projects, as the server answered them. */
  projects: TListedProject[];
  /** Every project matching the search and filter. */
  total: number;
  query: ProjectsQuery;
  /** SysUser and SysAdmin see every company's projects: the company is a column. */
  showCompany: boolean;
  onEdit: (project: TProject) => void;
  onDelete: (project: TProject) => void;
  onAdd: () => void;
}

const NO_MATCH = 'No projects match the search. Change or clear it to see more projects.';

/**
 * The projects as a table searched, sorted and paged by the server, or below the `sm` breakpoint as
 * cards (no sideways scrolling on a phone). The columns have fixed widths: moving from page to page
 * never shifts them.
 */
export function ProjectsTable({ projects, total, query, showCompany, onEdit, onDelete, onAdd }: ProjectsTableProps) {
  const phone = useMediaQuery((theme: Theme) => theme.breakpoints.down('sm'), { noSsr: true });
  const columns = projectColumns(showCompany);
  const pager = total > 0 && <TablePager count={total} pagination={query.pagination} />;
  const empty = total === 0 && !query.filtered;
  const noMatch = projects.length === 0 && !empty;

  if (phone) {
    return (
      <>
        {empty ? (
          <ProjectsEmptyState onAdd={onAdd} />
        ) : noMatch ? (
          <Typography sx={{ px: 2, py: 4, textAlign: 'center' }} color="text.secondary">
            {NO_MATCH}
          </Typography>
        ) : (
          <ProjectCards projects={projects} showCompany={showCompany} onEdit={onEdit} onDelete={onDelete} />
        )}
        {pager}
      </>
    );
  }
  return (
    <>
      <TableContainer>
        <Table aria-label="Projects" sx={{ tableLayout: 'fixed', minWidth: showCompany ? 1150 : 980, '& th': { whiteSpace: 'nowrap' } }}>
          <colgroup>
            {columns.map((column) => (
              <col key={column.label} style={column.width ? { width: column.width } : undefined} />
            ))}
          </colgroup>
          <TableHead>
            <TableRow>
              {columns.map((column) => (
                <SortableHeader
                  key={column.label}
                  label={column.label}
                  sortKey={column.sort}
                  current={query.sort}
                  onSort={query.sortBy}
                  align={column.align}
                />
              ))}
            </TableRow>
          </TableHead>
          <TableBody>
            {empty && (
              <TableRow>
                <TableCell colSpan={columns.length} sx={{ borderBottom: 0 }}>
                  <ProjectsEmptyState onAdd={onAdd} />
                </TableCell>
              </TableRow>
            )}
            {noMatch && (
              <TableRow>
                <TableCell colSpan={columns.length} sx={{ borderBottom: 0, textAlign: 'center', py: 4, color: 'text.secondary' }}>
                  {NO_MATCH}
                </TableCell>
              </TableRow>
            )}
            {projects.map((project) => (
              <TableRow key={project.id} hover>
                <TableCell sx={{ overflowWrap: 'anywhere' }}>
                  <Link component={RouterLink} to={`/study/${project.id}`} underline="hover" sx={{ fontWeight: 600 }}>
                    {project.name}
                  </Link>
                </TableCell>
                {showCompany && <TableCell sx={{ overflowWrap: 'anywhere' }}>{project.companyname}</TableCell>}
                <TableCell align="right">{project.files.toLocaleString()}</TableCell>
                <TableCell align="right">{project.studies.toLocaleString()}</TableCell>
                <TableCell sx={{ whiteSpace: 'nowrap' }}>
                  <LastUpload value={project.last_upload_at} />
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
