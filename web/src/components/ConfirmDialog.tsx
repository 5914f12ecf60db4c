import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import { useId, type ReactNode } from 'react';
import { BusyStatus } from './BusyOverlay';

interface ConfirmDialogProps {
  open: boolean;
  title: string;
  message: string;
  /** A second line under the spec's sentence naming what would be deleted. */
  detail?: ReactNode;
  confirmLabel: string;
  busyLabel?: string;
  busy?: boolean;
  /** Shown in the dialog while busy (e.g. 'Deleting project...'), instead of an overlay above it. */
  busyMessage?: string;
  onConfirm: () => void;
  onClose: () => void;
}

/** A destructive action asks first; while it runs the dialog cannot be dismissed. */
export function ConfirmDialog(props: ConfirmDialogProps) {
  const { open, title, message, detail, confirmLabel, busyLabel, busy = false, busyMessage, onConfirm, onClose } = props;
  const titleId = useId();
  const textId = useId();
  return (
    <Dialog
      open={open}
      onClose={busy ? undefined : onClose}
      aria-labelledby={titleId}
      aria-describedby={textId}
      maxWidth="xs"
      fullWidth
    >
      <DialogTitle id={titleId}>{title}</DialogTitle>
      <DialogContent>
        <DialogContentText id={textId}>{message}</DialogContentText>
        {detail !== undefined && (
          <DialogContentText component="div" sx={{ mt: 1, fontWeight: 600, color: 'text.primary', overflowWrap: 'anywhere' }}>
            {detail}
          </DialogContentText>
        )}
        {busy && busyMessage && <BusyStatus title={busyMessage} layout="inline" />}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={busy}>
          Cancel
        </Button>
        <Button onClick={onConfirm} disabled={busy} color="error" variant="contained">
          {busy && busyLabel ? busyLabel : confirmLabel}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
