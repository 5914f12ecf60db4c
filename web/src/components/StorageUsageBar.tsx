import Box from '@mui/material/Box';
import LinearProgress from '@mui/material/LinearProgress';
import Typography from '@mui/material/Typography';
import { formatFileSize } from '../lib/format';

interface StorageUsageBarProps {
  usedBytes: number;
  /** null: no allowance is set. */
  quotaBytes: number | null;
  /** Narrow: no caption line under the bar (a table cell). */
  dense?: boolean;
}

/** The share of its storage allowance a company uses: 80 % and more is a warning, a full allowance an error. */
export function storageUsageText(usedBytes: number, quotaBytes: number | null): string {
  if (quotaBytes === null) return `${formatFileSize(usedBytes)} used (no limit)`;
  return `${formatFileSize(usedBytes)} of ${formatFileSize(quotaBytes)} used`;
}

export function StorageUsageBar({ usedBytes, quotaBytes, dense = false }: StorageUsageBarProps) {
  const text = storageUsageText(usedBytes, quotaBytes);
  if (quotaBytes === null) {
    return (
      <Typography variant="body2" color="text.secondary" sx={{ whiteSpace: 'nowrap' }}>
        {text}
      </Typography>
    );
  }
  const percent = quotaBytes === 0 ? 100 : Math.min(100, (usedBytes / quotaBytes) * 100);
  const color = percent >= 100 ? 'error' : percent >= 80 ? 'warning' : 'primary';
  return (
    <Box sx={{ minWidth: dense ? 140 : 200 }}>
      <LinearProgress
        variant="determinate"
        value={percent}
        color={color}
        aria-label="Storage used"
        aria-valuetext={text}
        sx={{ height: 8, borderRadius: 4 }}
      />
      <Typography variant={dense ? 'caption' : 'body2'} color={color === 'primary' ? 'text.secondary' : `${color}.main`} sx={{ display: 'block', mt: 0.5, whiteSpace: 'nowrap' }}>
        {`${text} (${Math.floor(percent)}%)`}
      </Typography>
    </Box>
  );
}
