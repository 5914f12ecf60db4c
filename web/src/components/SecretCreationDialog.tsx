import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import useMediaQuery from '@mui/material/useMediaQuery';
import type { Theme } from '@mui/material/styles';
import { useId, type ReactNode } from 'react';
import { BusyStatus } from './BusyOverlay';

interface SecretCreationDialogProps {
  /** The title while the form is filled in, and once the secret is shown. */
  title: string;
  createdTitle: string;
  submitLabel: string;
  /** What the busy line says while the server creates it ('Creating token...'). */
  busyTitle: string;
  pending: boolean;
  error: string | null;
  /** What the server answered once, shown instead of the form (a ShownOnceSecret and its notes); null before. */
  created: ReactNode;
  onSubmit: () => void;
  onClose: () => void;
  /** The form's fields. */
  children: ReactNode;
}

/**
 * The frame of a dialog that creates something whose secret the server answers once (an API token, a
 * webhook's signing secret): the form, its refusal and busy line, then the secret in its place with
 * only 'Done'. A click beside the shown secret would lose it for good: only Done and Esc close it then.
 */
export function SecretCreationDialog({ title, createdTitle, submitLabel, busyTitle, pending, error, created, onSubmit, onClose, children }: SecretCreationDialogProps) {
  const titleId = useId();
  const phone = useMediaQuery((theme: Theme) => theme.breakpoints.down('sm'), { noSsr: true });
  const shown = created !== null;
  const close = () => {
    if (!pending) onClose();
  };
  return (
    <Dialog open onClose={(_event, why) => (shown && why === 'backdropClick' ? undefined : close())} aria-labelledby={titleId} maxWidth="sm" fullWidth fullScreen={phone}>
      <DialogTitle id={titleId}>{shown ? createdTitle : title}</DialogTitle>
      <DialogContent>
        {!shown && (
          <Box component="form" noValidate onSubmit={(e) => (e.preventDefault(), onSubmit())}>
            {children}
            {error && (
              <Alert severity="error" sx={{ mt: 2 }}>
                {error}
              </Alert>
            )}
            {pending && <BusyStatus title={busyTitle} layout="inline" />}
          </Box>
        )}
        {created}
      </DialogContent>
      <DialogActions sx={{ px: 3, pb: 2 }}>
        {shown ? (
          <Button variant="contained" onClick={onClose}>
            Done
          </Button>
        ) : (
          <>
            <Button onClick={close} disabled={pending}>
              Cancel
            </Button>
            <Button variant="contained" onClick={onSubmit} disabled={pending}>
              {submitLabel}
            </Button>
          </>
        )}
      </DialogActions>
    </Dialog>
  );
}
