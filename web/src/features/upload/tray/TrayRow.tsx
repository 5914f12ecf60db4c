import CloseRounded from '@mui/icons-material/CloseRounded';
import PauseRounded from '@mui/icons-material/PauseRounded';
import PlayArrowRounded from '@mui/icons-material/PlayArrowRounded';
import ReplayRounded from '@mui/icons-material/ReplayRounded';
import Box from '@mui/material/Box';
import IconButton from '@mui/material/IconButton';
import LinearProgress from '@mui/material/LinearProgress';
import ListItem from '@mui/material/ListItem';
import Typography from '@mui/material/Typography';
import { memo } from 'react';
import { describeRow, STATUS_CHIP } from '../components/UploadRows';
import type { UploadQueue, UploadRow } from '../model/upload-queue';

interface Action {
  label: string;
  icon: typeof PauseRounded;
  run: (queue: UploadQueue, key: string) => void;
}

function actionsOf(row: UploadRow): Action[] {
  switch (row.status) {
    case 'queued':
    case 'uploading':
      return [
        { label: 'Pause', icon: PauseRounded, run: (q, k) => q.pause(k) },
        { label: 'Cancel', icon: CloseRounded, run: (q, k) => q.cancel(k) },
      ];
    case 'paused':
      return [
        { label: 'Resume', icon: PlayArrowRounded, run: (q, k) => q.retry(k) },
        { label: 'Cancel', icon: CloseRounded, run: (q, k) => q.cancel(k) },
      ];
    case 'failed':
      return row.retryable ? [{ label: 'Retry', icon: ReplayRounded, run: (q, k) => q.retry(k) }] : [];
    case 'cancelled':
      return [{ label: 'Retry', icon: ReplayRounded, run: (q, k) => q.retry(k) }];
    default:
      return [];
  }
}

/** One file in the tray: its name, state in words, a bar while it moves, and what can be done with it. */
export const TrayRow = memo(function TrayRow({ row, queue }: { row: UploadRow; queue: UploadQueue }) {
  const name = row.path.split('/').pop() ?? row.path;
  const status = row.status === 'ready' ? null : STATUS_CHIP[row.status].label;
  const moving = row.status === 'uploading' || row.status === 'finishing' || row.status === 'paused';
  return (
    <ListItem disablePadding sx={{ display: 'block', py: 0.75, px: 2 }} aria-label={row.path}>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
        <Box sx={{ flex: 1, minWidth: 0 }}>
          <Typography variant="body2" noWrap title={row.path}>
            {name}
          </Typography>
          <Typography variant="caption" color={row.status === 'failed' ? 'error' : 'text.secondary'} sx={{ display: 'block', overflowWrap: 'anywhere' }}>
            {status && `${status} · `}
            {describeRow(row, undefined)}
          </Typography>
        </Box>
        {actionsOf(row).map(({ label, icon: Icon, run }) => (
          <IconButton key={label} size="small" aria-label={`${label} ${row.path}`} title={label} onClick={() => run(queue, row.key)}>
            <Icon fontSize="small" />
          </IconButton>
        ))}
      </Box>
      {moving && (
        <LinearProgress
          sx={{ mt: 0.5 }}
          variant={row.status === 'finishing' ? 'indeterminate' : 'determinate'}
          value={row.file.size > 0 ? (row.sent / row.file.size) * 100 : 0}
          aria-label={`Progress of ${row.path}`}
        />
      )}
    </ListItem>
  );
});
