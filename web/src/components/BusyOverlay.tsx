import Backdrop from '@mui/material/Backdrop';
import CircularProgress from '@mui/material/CircularProgress';
import LinearProgress from '@mui/material/LinearProgress';
import Paper from '@mui/material/Paper';
import Portal from '@mui/material/Portal';
import Typography from '@mui/material/Typography';

interface BusyOverlayProps {
  open: boolean;
  title: string;
  subtitle?: string;
  /** A percentage shows a determinate bar; without it a spinner turns. */
  progress?: number;
  /** 'top' keeps the card clear of a dialog that stays open beneath it (its button shows progress too). */
  placement?: 'center' | 'top';
}

/** Full-screen overlay that blocks the page while an operation runs. */
export function BusyOverlay({ open, title, subtitle, progress, placement = 'center' }: BusyOverlayProps) {
  // Mounted only while open, in a portal: a dialog opened earlier marks everything already on the
  // page aria-hidden, which would silence this status. Backdrop also hides itself by default.
  if (!open) return null;
  return (
    <Portal>
      <Backdrop
        open={open}
        sx={{ zIndex: (t) => t.zIndex.modal + 1, ...(placement === 'top' && { alignItems: 'flex-start', pt: '10vh' }) }}
        slotProps={{ root: { 'aria-hidden': false } }}
      >
        {open && (
          <Paper role="status" aria-live="polite" elevation={8} sx={{ p: 4, minWidth: 300, maxWidth: '90vw', textAlign: 'center' }}>
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
          </Paper>
        )}
      </Backdrop>
    </Portal>
  );
}
