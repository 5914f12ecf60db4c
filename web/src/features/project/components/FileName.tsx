import type { TProjectFile } from '@portal/contract';
import FolderOutlined from '@mui/icons-material/FolderOutlined';
import Link from '@mui/material/Link';
import { ReviewStatus } from '../../review';
import { DeidentifiedChip } from './DeidentifiedChip';
import { DuplicateChip } from './DuplicateChip';
import { ProcessingStatus } from './ProcessingStatus';
import { ScanStatus } from './ScanStatus';

interface FileNameProps {
  file: TProjectFile;
  files: readonly TProjectFile[];
  onOpen: (file: TProjectFile) => void;
  onUploadAgain: (file: TProjectFile) => void;
}

/** A file's name (a folder marked as one), its processing status and summary, its virus scan, its review (issue 35), its de-identified and duplicate marks. */
export function FileName({ file, files, onOpen, onUploadAgain }: FileNameProps) {
  return (
    <>
      {/* A delivery (a folder sent as one unit) reads as a folder; it downloads as a zip. */}
      {file.kind === 'folder' && <FolderOutlined titleAccess="Folder" aria-label="Folder" fontSize="small" color="action" sx={{ verticalAlign: 'middle', mr: 0.5 }} />}
      <Link component="button" type="button" underline="hover" onClick={() => onOpen(file)} sx={{ fontWeight: 600, textAlign: 'left', overflowWrap: 'anywhere' }}>
        {file.file}
      </Link>
      <ProcessingStatus processing={file.processing} uploadAgain={{ name: file.file, onClick: () => onUploadAgain(file) }} />
      <ScanStatus scan={file.scan} />
      <ReviewStatus review={file.review} />
      <DeidentifiedChip file={file} />
      <DuplicateChip file={file} files={files} />
    </>
  );
}
