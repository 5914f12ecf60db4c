import Box from '@mui/material/Box';
import LinearProgress from '@mui/material/LinearProgress';
import Typography from '@mui/material/Typography';
import { formatFileSize } from '../../../lib/format';
import { percentOf } from '../../../lib/progress';
import type { BatchProgress } from '../model/upload-queue';
import { formatDuration } from '@portal/contract/transfer-rate';

interface UploadProgressProps {
  batch: BatchProgress;
  active: boolean;
  /** Every file still in flight has all its bytes on the server, which is checking them. */
  checking: boolean;
}

/** Spec §2's bar and 'Uploading files... n%', then what issue 13 adds: files, bytes, speed, time left. */
export function UploadProgress({ batch, active, checking }: UploadProgressProps) {
  const percent = percentOf(batch.sentBytes, batch.totalBytes);
  const parts = [`${batch.doneFiles} of ${batch.files} files`, `${formatFileSize(batch.sentBytes)} of ${formatFileSize(batch.totalBytes)}`];
  if (active && !checking && batch.bytesPerSecond !== null) parts.push(`${formatFileSize(batch.bytesPerSecond)}/s`);
  if (active && !checking && batch.secondsLeft !== null) parts.push(`${formatDuration(batch.secondsLeft)} left`);
  return (
    <Box>
      <LinearProgress variant="determinate" value={percent} aria-label="Upload progress" />
      <Typography variant="body2" sx={{ mt: 0.5 }}>{`Uploading files... ${percent}%`}</Typography>
      <Typography variant="body2" color="text.secondary" data-testid="upload-totals">
        {parts.join(' · ')}
      </Typography>
      {checking && (
        <Typography variant="body2" color="text.secondary" role="status">
          All bytes sent: the server is checking the files. Processing follows in the files table.
        </Typography>
      )}
    </Box>
  );
}
