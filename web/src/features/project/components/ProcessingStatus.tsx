import type { TProjectFile } from '@portal/contract';
import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import { describeSummary } from '../processing-summary';

const CHIP = {
  pending: { label: 'Pending', color: 'default' },
  processing: { label: 'Processing', color: 'info' },
  ready: { label: 'Ready', color: 'success' },
  failed: { label: 'Failed', color: 'error' },
} as const;

/** What processing made of an upload: its state, its counts when ready, its reason when failed. */
export function ProcessingStatus({ processing }: { processing: TProjectFile['processing'] }) {
  const chip = CHIP[processing.status];
  const detail =
    processing.status === 'ready' && processing.summary
      ? describeSummary(processing.summary)
      : processing.status === 'failed'
        ? (processing.error ?? 'Processing failed')
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
    </Box>
  );
}
