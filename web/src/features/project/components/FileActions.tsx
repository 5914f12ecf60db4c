import type { TProjectFile } from '@portal/contract';
import DeleteOutline from '@mui/icons-material/DeleteOutlined';
import Download from '@mui/icons-material/Download';
import FactCheck from '@mui/icons-material/FactCheckOutlined';
import FindReplace from '@mui/icons-material/FindReplace';
import ListAlt from '@mui/icons-material/ListAlt';
import IconButton from '@mui/material/IconButton';
import Tooltip from '@mui/material/Tooltip';
import { OpenInViewerButton } from '../../../components/OpenInViewerButton';
import { fileViewerUrl } from '../../../lib/viewer-url';

export interface FileActionHandlers {
  onOpen: (file: TProjectFile) => void;
  onDownload: (file: TProjectFile) => void;
  onDelete: (file: TProjectFile) => void;
  /** Given to SysUser and SysAdmin (issue 35): accept or reject. */
  onReview?: ((file: TProjectFile) => void) | undefined;
  /** Given to those who may upload (issue 35): answer a rejected upload with one that replaces it. */
  onReplace?: ((file: TProjectFile) => void) | undefined;
}

/** A DICOM file or a folder whose processing found images; an archive's images are seen through the Studies view. */
function viewable(file: TProjectFile): boolean {
  return file.kind !== 'archive' && file.scan.status !== 'infected' && file.processing.status === 'ready' && (file.processing.summary?.instances ?? 0) > 0;
}

/** A file's actions, the same in a table row and on a phone's card. */
export function FileActions({ file, onOpen, onDownload, onDelete, onReview, onReplace }: FileActionHandlers & { file: TProjectFile }) {
  const reviewable = onReview && file.review.state !== null && file.review.state !== 'replaced';
  return (
    <>
      {reviewable && (
        <Tooltip title="Accept or reject">
          <IconButton aria-label={`Review ${file.file}`} onClick={() => onReview(file)} color="primary">
            <FactCheck />
          </IconButton>
        </Tooltip>
      )}
      {onReplace && file.review.state === 'rejected' && (
        <Tooltip title="Send a replacement">
          <IconButton aria-label={`Send a replacement for ${file.file}`} onClick={() => onReplace(file)} color="primary">
            <FindReplace />
          </IconButton>
        </Tooltip>
      )}
      {viewable(file) && <OpenInViewerButton href={fileViewerUrl(file.studypetitionid, file.id)} name={file.file} />}
      <Tooltip title="Contents">
        <IconButton aria-label={`View contents of ${file.file}`} onClick={() => onOpen(file)}>
          <ListAlt />
        </IconButton>
      </Tooltip>
      <Tooltip title={file.scan.status === 'infected' ? 'Infected: it cannot be downloaded' : 'Download'}>
        <span>
          <IconButton aria-label={`Download ${file.file}`} onClick={() => onDownload(file)} color="primary" disabled={file.scan.status === 'infected'}>
            <Download />
          </IconButton>
        </span>
      </Tooltip>
      <Tooltip title="Delete">
        <IconButton aria-label={`Delete ${file.file}`} onClick={() => onDelete(file)} color="error">
          <DeleteOutline />
        </IconButton>
      </Tooltip>
    </>
  );
}
