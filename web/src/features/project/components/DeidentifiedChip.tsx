import type { TProjectFile } from '@portal/contract';
import Chip from '@mui/material/Chip';
import Tooltip from '@mui/material/Tooltip';
import { deidentificationWords } from '../../../lib/deidentification-words';

/** A file whose instances had their identity removed (it has a de-identification report); the report is in its contents. */
export function DeidentifiedChip({ file }: { file: TProjectFile }) {
  if (file.deidentification === null) return null;
  const title = `${deidentificationWords(file.deidentification)}. Open the file to see the report.`;
  return (
    <Tooltip title={title}>
      <Chip size="small" label="De-identified" color="success" variant="outlined" sx={{ mt: 0.5, mr: 0.5 }} aria-label={`De-identified: ${title}`} />
    </Tooltip>
  );
}
