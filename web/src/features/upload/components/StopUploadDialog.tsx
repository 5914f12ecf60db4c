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
}

/** Esc or a click beside the dialog must not lose an upload silently: it asks first (web/README.md). */
export function StopUploadDialog({ open, onKeepUploading, onStop }: StopUploadDialogProps) {
  return (
    <Dialog open={open} onClose={onKeepUploading} aria-labelledby="stop-upload-title" aria-describedby="stop-upload-text" maxWidth="xs" fullWidth>
      <DialogTitle id="stop-upload-title">Stop uploading?</DialogTitle>
      <DialogContent>
        <DialogContentText id="stop-upload-text">
          Files still uploading will be stopped and removed from the server. Files already uploaded stay in the project.
        </DialogContentText>
      </DialogContent>
      <DialogActions>
        <Button onClick={onKeepUploading} autoFocus>
          Keep Uploading
        </Button>
        <Button onClick={onStop} color="error" variant="contained">
          Stop Upload
        </Button>
      </DialogActions>
    </Dialog>
  );
}
