import type { TProject } from '@portal/contract';
import DeleteOutline from '@mui/icons-material/DeleteOutlined';
import EditOutlined from '@mui/icons-material/EditOutlined';
import IconButton from '@mui/material/IconButton';
import Tooltip from '@mui/material/Tooltip';

interface ProjectActionsProps {
  project: TProject;
  onEdit: (project: TProject) => void;
  onDelete: (project: TProject) => void;
}

/** A project's edit and delete icons, the same in a table row and on a phone's card. */
export function ProjectActions({ project, onEdit, onDelete }: ProjectActionsProps) {
  return (
    <>
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
    </>
  );
}
