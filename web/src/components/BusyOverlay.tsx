import Backdrop from '@mui/material/Backdrop';
import Box from '@mui/material/Box';
import CircularProgress from '@mui/material/CircularProgress';
import LinearProgress from '@mui/material/LinearProgress';
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
    <Backdrop open={open} sx={{ zIndex: (t) => t.zIndex.modal + 1, color: '#fff', flexDirection: 'column', gap: 2 }}>
      {open && (
        <Box role="status" aria-live="polite" sx={{ textAlign: 'center', minWidth: 280 }}>
          {progress === undefined ? (
            <CircularProgress color="inherit" aria-label={title} />
          ) : (
            <LinearProgress
              variant="determinate"
              value={progress}
              aria-label={title}
              sx={{ height: 8, borderRadius: 4, mb: 1 }}
            />
          )}
          <Typography variant="h6" component="p" sx={{ mt: 2 }}>
            {title}
          </Typography>
          {progress !== undefined && <Typography variant="body1">{`${progress}%`}</Typography>}
          {subtitle && <Typography variant="body2">{subtitle}</Typography>}
        </Box>
      )}
    </Backdrop>
  );
}
