import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';

/** Shown instead of a blank page when a screen fails to render or a lazy chunk cannot load. */
export function RouteError({ error }: { error: unknown }) {
  const details = error instanceof Error ? error.message : null;
  return (
    <Box component="main" sx={{ p: 4, maxWidth: 640, mx: 'auto' }}>
      <Alert
        severity="error"
        action={
          <Button color="inherit" size="small" onClick={() => window.location.reload()}>
            Reload
          </Button>
        }
      >
        <AlertTitle>Something went wrong</AlertTitle>
        {details ?? 'The page could not be shown.'}
      </Alert>
    </Box>
  );
}
