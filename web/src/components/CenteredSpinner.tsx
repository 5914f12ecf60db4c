import Box from '@mui/material/Box';
import CircularProgress from '@mui/material/CircularProgress';

/** Spec §2: shown centred while the session (or a screen) loads. */
export function CenteredSpinner() {
  return (
    <Box sx={{ display: 'flex', alignItems: 'center', justifyContent: 'center', minHeight: '60vh', flex: 1 }}>
      <CircularProgress aria-label="Loading" />
    </Box>
  );
}
