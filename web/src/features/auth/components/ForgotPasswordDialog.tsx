import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';

/**
 * Accounts are created and reset by an administrator (DESIGN §5): there is no self-service reset,
 * so the link tells the user whom to ask.
 */
export function ForgotPasswordDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  return (
    <Dialog open={open} onClose={onClose} aria-labelledby="forgot-password-title" maxWidth="xs" fullWidth>
      <DialogTitle id="forgot-password-title">Forgot your password?</DialogTitle>
      <DialogContent>
        <DialogContentText>
          Passwords are managed by your company administrator. Please contact them to have your password reset.
        </DialogContentText>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} variant="contained">
          OK
        </Button>
      </DialogActions>
    </Dialog>
  );
}
