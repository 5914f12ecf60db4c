import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';

interface SignOutWhileUploadingDialogProps {
  open: boolean;
  onKeepUploading: () => void;
  onSignOut: () => void;
}

/**
 * Signing out stops the page's uploads (the frame that holds them goes): asked first, as leaving
 * the portal is. What reached the server stays there, and the tray offers it again after sign-in.
 */
export function SignOutWhileUploadingDialog({ open, onKeepUploading, onSignOut }: SignOutWhileUploadingDialogProps) {
  return (
    <Dialog open={open} onClose={onKeepUploading} aria-labelledby="sign-out-uploading-title" aria-describedby="sign-out-uploading-text" maxWidth="xs" fullWidth>
      <DialogTitle id="sign-out-uploading-title">Sign out while uploading?</DialogTitle>
      <DialogContent>
        <DialogContentText id="sign-out-uploading-text">
          Files still uploading will stop. What has reached the server is kept: after you sign in again, the uploads tray lists them, and picking the same files
          resumes them.
        </DialogContentText>
      </DialogContent>
      <DialogActions>
        <Button onClick={onKeepUploading} autoFocus>
          Keep Uploading
        </Button>
        <Button onClick={onSignOut} color="error" variant="contained">
          Logout
        </Button>
      </DialogActions>
    </Dialog>
  );
}
