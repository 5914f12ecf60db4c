import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import TextField from '@mui/material/TextField';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { formatUserError } from '../../../lib/error-mapping';
import { requestPasswordReset } from '../api/auth-api';

interface ForgotPasswordDialogProps {
  open: boolean;
  /** What the login form holds, so the user need not type it twice. */
  username: string;
  onClose: () => void;
}

/**
 * Asks for the username and tells the user's administrators (issue 15). The answer is the same
 * whatever was typed, so the dialog never reveals whether an account exists.
 */
export function ForgotPasswordDialog({ open, username, onClose }: ForgotPasswordDialogProps) {
  return (
    <Dialog open={open} onClose={onClose} aria-labelledby="forgot-password-title" maxWidth="xs" fullWidth>
      {/* Mounted per opening: it starts from the login form's username and without an old answer. */}
      {open && <ForgotPasswordForm initialUsername={username} onClose={onClose} />}
    </Dialog>
  );
}

function ForgotPasswordForm({ initialUsername, onClose }: { initialUsername: string; onClose: () => void }) {
  const [username, setUsername] = useState(initialUsername.trim());
  const [sending, setSending] = useState(false);
  const [answer, setAnswer] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const okButton = useRef<HTMLButtonElement>(null);
  // The button pressed is gone once answered: focus moves to the one left, so Enter and Esc still work.
  useEffect(() => {
    if (answer) okButton.current?.focus();
  }, [answer]);

  const send = async (event: FormEvent) => {
    event.preventDefault();
    if (!username.trim() || sending) return;
    setSending(true);
    setFailure(null);
    try {
      setAnswer(await requestPasswordReset(username.trim()));
    } catch (error) {
      setFailure(formatUserError(error));
    } finally {
      setSending(false);
    }
  };

  return (
    <form onSubmit={(event) => void send(event)} noValidate>
      <DialogTitle id="forgot-password-title">Forgot your password?</DialogTitle>
      <DialogContent>
        {answer ? (
          <Alert severity="success" role="status">
            {answer}
          </Alert>
        ) : (
          <>
            <DialogContentText>
              Enter your username. Your company administrator is told and can send you a link to set a new password.
            </DialogContentText>
            {failure && (
              <Alert severity="error" sx={{ mt: 2 }}>
                {failure}
              </Alert>
            )}
            <TextField
              label="Username"
              name="username"
              autoComplete="username"
              value={username}
              onChange={(e) => setUsername(e.target.value)}
              disabled={sending}
              fullWidth
              autoFocus
              margin="normal"
              slotProps={{ htmlInput: { maxLength: 255 } }}
            />
          </>
        )}
      </DialogContent>
      <DialogActions>
        {answer ? (
          <Button onClick={onClose} variant="contained" ref={okButton}>
            OK
          </Button>
        ) : (
          <>
            <Button onClick={onClose} disabled={sending}>
              Cancel
            </Button>
            <Button
              type="submit"
              variant="contained"
              disabled={sending || !username.trim()}
              startIcon={sending ? <CircularProgress size={18} color="inherit" aria-hidden="true" /> : undefined}
            >
              Send Request
            </Button>
          </>
        )}
      </DialogActions>
    </form>
  );
}
