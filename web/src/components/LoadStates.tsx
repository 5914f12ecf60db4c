import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Skeleton from '@mui/material/Skeleton';

interface LoadStatesProps {
  /** The query's failure, if any: shown in words with Retry. */
  error: unknown;
  errorText: (error: unknown) => string;
  onRetry: () => void;
  /** Nothing answered yet: skeleton rows, named for assistive technology. */
  pending: boolean;
  loadingLabel: string;
  rows?: number;
}

/** What a list shows before its rows: the §8 error with Retry, or a skeleton while the first answer comes. */
export function LoadStates({ error, errorText, onRetry, pending, loadingLabel, rows = 2 }: LoadStatesProps) {
  const failed = error !== null && error !== undefined;
  return (
    <>
      {failed && (
        <Alert
          severity="error"
          sx={{ m: 2 }}
          action={
            <Button color="inherit" size="small" onClick={onRetry}>
              Retry
            </Button>
          }
        >
          {errorText(error)}
        </Alert>
      )}
      {pending && !failed && (
        <Box sx={{ p: 2 }} role="progressbar" aria-label={loadingLabel}>
          {Array.from({ length: rows }, (_, row) => (
            <Skeleton key={row} height={48} />
          ))}
        </Box>
      )}
    </>
  );
}
