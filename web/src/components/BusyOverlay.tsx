import Backdrop from '@mui/material/Backdrop';
import CircularProgress from '@mui/material/CircularProgress';
import LinearProgress from '@mui/material/LinearProgress';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';

interface BusyOverlayProps {
  open: boolean;
  title: string;
  subtitle?: string;
  /** A percentage shows a determinate bar; without it a spinner turns. */
  progress?: number;
}

/** Full-screen overlay that blocks the page while an operation runs. */
export function BusyOverlay({ open, title, subtitle, progress }: BusyOverlayProps) {
  return (
    <Backdrop open={open} sx={{ zIndex: (t) => t.zIndex.modal + 1 }}>
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
  );
}
