import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';

interface StopUploadDialogProps {
  open: boolean;
  onKeepUploading: () => void;
  onStop: () => void;
  /** Closes the dialog and lets the uploads go on in the tray (only where the page has one). */
  onContinueInBackground?: (() => void) | undefined;
}

/** Esc or a click beside the dialog must not lose an upload silently: it asks first (web/README.md). */
export function StopUploadDialog({ open, onKeepUploading, onStop, onContinueInBackground }: StopUploadDialogProps) {
  return (
    <Dialog open={open} onClose={onKeepUploading} aria-labelledby="stop-upload-title" aria-describedby="stop-upload-text" maxWidth="xs" fullWidth>
      <DialogTitle id="stop-upload-title">Stop uploading?</DialogTitle>
      <DialogContent>
        <DialogContentText id="stop-upload-text">
          Files still uploading will be stopped and removed from the server. Files already uploaded stay in the project.
          {onContinueInBackground && ' Or continue in the background: the uploads tray shows their progress while you move around the portal.'}
        </DialogContentText>
      </DialogContent>
      <DialogActions>
        <Button onClick={onKeepUploading} autoFocus>
          Keep Uploading
        </Button>
        {onContinueInBackground && <Button onClick={onContinueInBackground}>Continue in Background</Button>}
        <Button onClick={onStop} color="error" variant="contained">
          Stop Upload
        </Button>
      </DialogActions>
    </Dialog>
  );
}
