import Alert from '@mui/material/Alert';
import Typography from '@mui/material/Typography';
import { describeLeftOut, type FolderSelection, type LeftOutFile } from '../file-filters';

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** Spec §2's info line (folder name, total, compressed files), with DICOM counted apart (issue 13). */
export function FolderInfo({ folder }: { folder: FolderSelection }) {
  return (
    <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }} data-testid="folder-info">
      {`Folder "${folder.folderName}": ${plural(folder.total, 'file', 'files')} in total, ${plural(folder.dicomCount, 'DICOM file', 'DICOM files')}, ${plural(folder.archiveCount, 'compressed file', 'compressed files')}`}
      {folder.leftOut.length > 0 && `. Left out: ${describeLeftOut(folder.leftOut)}`}
    </Typography>
  );
}

/** Files picked one by one that the portal does not take, each with its reason. */
export function LeftOutNotice({ leftOut }: { leftOut: readonly LeftOutFile[] }) {
  return (
    <Alert severity="info" sx={{ mb: 2, wordBreak: 'break-word' }}>
      {`Left out: ${describeLeftOut(leftOut)}`}
    </Alert>
  );
}
