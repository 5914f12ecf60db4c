import Backdrop from '@mui/material/Backdrop';
import Box from '@mui/material/Box';
import CircularProgress from '@mui/material/CircularProgress';
import LinearProgress from '@mui/material/LinearProgress';
import Paper from '@mui/material/Paper';
import Portal from '@mui/material/Portal';
import Typography from '@mui/material/Typography';

interface BusyStatusProps {
  title: string;
  subtitle?: string;
  /** A percentage shows a determinate bar; without it a spinner turns. */
  progress?: number;
  /** 'inline' puts a small spinner beside the title: a line inside a dialog that stays readable. */
  layout?: 'stacked' | 'inline';
}

/**
 * What an operation in progress says, announced politely. A dialog shows it inside itself rather
 * than under a second overlay, so the state is shown once and nothing covers it.
 */
export function BusyStatus({ title, subtitle, progress, layout = 'stacked' }: BusyStatusProps) {
  if (layout === 'inline') {
    return (
      <Box role="status" aria-live="polite" sx={{ display: 'flex', alignItems: 'center', gap: 1.5, mt: 2 }}>
        <CircularProgress size={20} aria-label={title} />
        <Typography variant="body1" component="p" sx={{ fontWeight: 600 }}>
          {title}
        </Typography>
      </Box>
    );
  }
  return (
    <Box role="status" aria-live="polite" sx={{ textAlign: 'center' }}>
      {progress === undefined ? (
        <CircularProgress aria-label={title} />
      ) : (
        <LinearProgress variant="determinate" value={progress} aria-label={title} sx={{ height: 8, borderRadius: 4 }} />
      )}
      <Typography variant="h6" component="p" sx={{ mt: 2 }}>
        {title}
      </Typography>
      {progress !== undefined && <Typography variant="body1">{`${progress}%`}</Typography>}
      {subtitle && (
        <Typography variant="body2" color="text.secondary">
          {subtitle}
        </Typography>
      )}
    </Box>
  );
}

interface BusyOverlayProps {
  open: boolean;
  title: string;
  subtitle?: string;
  progress?: number;
}

/**
 * Full-screen overlay that blocks the page while an operation started outside any dialog runs. A
 * dialog that stays open shows its own state instead (ConfirmDialog's busyMessage): an overlay over
 * it would show one state twice.
 */
export function BusyOverlay({ open, title, subtitle, progress }: BusyOverlayProps) {
  // Mounted only while open, in a portal: a dialog opened earlier marks everything already on the
  // page aria-hidden, which would silence this status. Backdrop also hides itself by default.
  if (!open) return null;
  return (
    <Portal>
      <Backdrop
        open={open}
        sx={{ zIndex: (t) => t.zIndex.modal + 1 }}
        slotProps={{ root: { 'aria-hidden': false } }}
      >
        <Paper elevation={8} sx={{ p: 4, minWidth: 300, maxWidth: '90vw' }}>
          <BusyStatus title={title} subtitle={subtitle} progress={progress} />
        </Paper>
      </Backdrop>
    </Portal>
  );
}
