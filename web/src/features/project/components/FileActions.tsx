import type { TProjectFile } from '@portal/contract';
import DeleteOutline from '@mui/icons-material/DeleteOutlined';
import Download from '@mui/icons-material/Download';
import ListAlt from '@mui/icons-material/ListAlt';
import IconButton from '@mui/material/IconButton';
import Tooltip from '@mui/material/Tooltip';

export interface FileActionHandlers {
  onOpen: (file: TProjectFile) => void;
  onDownload: (file: TProjectFile) => void;
  onDelete: (file: TProjectFile) => void;
}

/** A file's actions, the same in a table row and on a phone's card. */
export function FileActions({ file, onOpen, onDownload, onDelete }: FileActionHandlers & { file: TProjectFile }) {
  return (
    <>
      <Tooltip title="Contents">
        <IconButton aria-label={`View contents of ${file.file}`} onClick={() => onOpen(file)}>
          <ListAlt />
        </IconButton>
      </Tooltip>
      <Tooltip title="Download">
        <IconButton aria-label={`Download ${file.file}`} onClick={() => onDownload(file)} color="primary">
          <Download />
        </IconButton>
      </Tooltip>
      <Tooltip title="Delete">
        <IconButton aria-label={`Delete ${file.file}`} onClick={() => onDelete(file)} color="error">
          <DeleteOutline />
        </IconButton>
      </Tooltip>
    </>
  );
}
