import type { TProjectFile } from '@portal/contract';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import { withRemedy } from '../failure-remedies';
import { describeSummary } from '../processing-summary';

const CHIP = {
  pending: { label: 'Pending', color: 'default' },
  processing: { label: 'Processing', color: 'info' },
  ready: { label: 'Ready', color: 'success' },
  failed: { label: 'Failed', color: 'error' },
} as const;

interface ProcessingStatusProps {
  processing: TProjectFile['processing'];
  /** Offered on a failed upload: send the file again (opens the upload dialog). */
  uploadAgain?: { name: string; onClick: () => void };
}

/** What processing made of an upload: its state, its counts when ready, its reason when failed. */
export function ProcessingStatus({ processing, uploadAgain }: ProcessingStatusProps) {
  const chip = CHIP[processing.status];
  const detail =
    processing.status === 'ready' && processing.summary
      ? describeSummary(processing.summary)
      : processing.status === 'failed'
        ? `The upload could not be processed: ${processing.error ? withRemedy(processing.error) : 'the reason was not recorded'}`
        : null;
  return (
    <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, flexWrap: 'wrap', mt: 0.5 }}>
      <Tooltip title={processing.status === 'failed' ? (detail ?? '') : ''}>
        <Chip size="small" label={chip.label} color={chip.color} variant={processing.status === 'ready' ? 'outlined' : 'filled'} />
      </Tooltip>
      {detail && (
        <Typography variant="caption" color={processing.status === 'failed' ? 'error' : 'text.secondary'}>
          {detail}
        </Typography>
      )}
      {processing.status === 'failed' && uploadAgain && (
        <Button size="small" variant="text" onClick={uploadAgain.onClick} aria-label={`Upload ${uploadAgain.name} again`} sx={{ py: 0 }}>
          Upload again
        </Button>
      )}
    </Box>
  );
}
