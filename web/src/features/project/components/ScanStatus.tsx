import type { TScanState } from '@portal/contract';
import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import Typography from '@mui/material/Typography';

/** The virus scan's state in words (issue 37); 'not scanned' is never shown as clean. */
export function scanWords(scan: Pick<TScanState, 'status' | 'signature'>, what: 'file' | 'entry' = 'file'): { label: string; detail: string | null; color: 'error' | 'info' | 'default' | 'success' } {
  switch (scan.status) {
    case 'infected':
      return {
        label: 'Infected',
        detail: `The virus scan found this ${what} infected with ${scan.signature ?? 'a virus'}. It cannot be downloaded: delete it and ask the sender for a clean copy.`,
        color: 'error',
      };
    case 'waiting':
      return { label: 'Waiting for the virus scan', detail: null, color: 'info' };
    case 'clean':
      return { label: 'No virus found', detail: null, color: 'success' };
    default:
      return { label: 'Not scanned', detail: scan.signature, color: 'default' };
  }
}

/** A file's scan state beside its processing status: a chip, and for an infected file the signature and what to do. */
export function ScanStatus({ scan }: { scan: TScanState }) {
  const words = scanWords(scan);
  const shout = scan.status === 'infected';
  return (
    <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, flexWrap: 'wrap', mt: 0.5 }}>
      <Chip size="small" label={words.label} color={words.color} variant={shout ? 'filled' : 'outlined'} aria-label={`Virus scan: ${words.label}`} />
      {words.detail && (
        <Typography variant="caption" color={shout ? 'error' : 'text.secondary'}>
          {words.detail}
        </Typography>
      )}
    </Box>
  );
}
