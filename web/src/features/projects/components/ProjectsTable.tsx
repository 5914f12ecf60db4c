import type { TProject } from '@portal/contract';
import DeleteOutline from '@mui/icons-material/DeleteOutlined';
import EditOutlined from '@mui/icons-material/EditOutlined';
import FolderOpen from '@mui/icons-material/FolderOpen';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import IconButton from '@mui/material/IconButton';
import Link from '@mui/material/Link';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import { Link as RouterLink } from 'react-router';
import { TablePager } from '../../../components/TablePager';
import { usePagination } from '../../../components/use-pagination';
import { formatDate } from '../../../lib/format';

export const PROJECT_COLUMNS = ['Name', 'Date Created', 'Date Updated', 'Actions'] as const;

interface ProjectsTableProps {
  projects: TProject[];
  onEdit: (project: TProject) => void;
  onDelete: (project: TProject) => void;
  onAdd: () => void;
}

export function ProjectsTable({ projects, onEdit, onDelete, onAdd }: ProjectsTableProps) {
  const pagination = usePagination();
  return (
    <>
      <TableContainer>
        <Table aria-label="Projects" sx={{ minWidth: 560 }}>
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
                <TableCell colSpan={PROJECT_COLUMNS.length}>
                  <Box sx={{ textAlign: 'center', py: 5 }}>
                    <FolderOpen sx={{ fontSize: 48, color: 'text.disabled' }} aria-hidden="true" />
                    <Typography variant="h6" component="p">
                      No studies found
                    </Typography>
                    <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
                      Create your first project to start organizing your projects.
                    </Typography>
                    <Button variant="contained" onClick={onAdd}>
                      Add Study
                    </Button>
                  </Box>
                </TableCell>
              </TableRow>
            )}
            {pagination.slice(projects).map((project) => (
              <TableRow key={project.id} hover>
                <TableCell>
                  <Link component={RouterLink} to={`/study/${project.id}`} underline="hover" sx={{ fontWeight: 600 }}>
                    {project.name}
                  </Link>
                </TableCell>
                <TableCell>{formatDate(project.created_at)}</TableCell>
                <TableCell>{formatDate(project.updated_at)}</TableCell>
                <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                  <Tooltip title="Edit">
                    <IconButton aria-label={`Edit project ${project.name}`} onClick={() => onEdit(project)}>
                      <EditOutlined />
                    </IconButton>
                  </Tooltip>
                  <Tooltip title="Delete">
                    <IconButton aria-label={`Delete project ${project.name}`} onClick={() => onDelete(project)} color="error">
                      <DeleteOutline />
                    </IconButton>
                  </Tooltip>
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </TableContainer>
      {projects.length > 0 && <TablePager count={projects.length} pagination={pagination} />}
    </>
  );
}
