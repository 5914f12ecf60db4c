import type { TProjectFile } from '@portal/contract';
import Chip from '@mui/material/Chip';
import Tooltip from '@mui/material/Tooltip';

/** A file whose bytes were already in the project: kept, but marked, with the original named. */
export function DuplicateChip({ file, files }: { file: TProjectFile; files: readonly TProjectFile[] }) {
  if (file.duplicate_of === null) return null;
  const original = files.find((f) => f.id === file.duplicate_of);
  const title = original ? `Same content as ${original.file}` : 'Same content as a file already in this project';
  return (
    <Tooltip title={title}>
      <Chip size="small" label="Duplicate" color="warning" variant="outlined" sx={{ mt: 0.5 }} aria-label={`Duplicate: ${title}`} />
    </Tooltip>
  );
}
