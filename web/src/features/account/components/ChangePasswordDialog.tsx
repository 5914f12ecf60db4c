import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import { useEffect, useState } from 'react';
import { formSubmitHandlers } from '../../../lib/form-submit';
import Box from '@mui/material/Box';
import { BusyStatus } from '../../../components/BusyOverlay';
import { changePassword as defaultChangePassword, passwordErrorMessage } from '../api/password-api';
import { PASSWORDS_DO_NOT_MATCH, passwordIsValid, validatePasswordChange } from '../password-rules';
import { PasswordChecklist } from './PasswordChecklist';
import { PasswordField } from './PasswordField';

/** How long the success banner stays before the dialog closes itself. */
export const SUCCESS_CLOSE_DELAY_MS = 1500;

interface ChangePasswordDialogProps {
  open: boolean;
  userId: number;
  onClose: () => void;
  changePassword?: typeof defaultChangePassword;
}

export default function ChangePasswordDialog({ open, userId, onClose, changePassword = defaultChangePassword }: ChangePasswordDialogProps) {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [confirm, setConfirm] = useState('');
  // A check's message follows the fields once the user has tried to send them; the server's
  // answer is about the attempt it refused, so it stays until the next attempt or until dismissed.
  const [checksShown, setChecksShown] = useState(false);
  const [serverError, setServerError] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);
  const [succeeded, setSucceeded] = useState(false);

  useEffect(() => {
    if (!succeeded) return;
    const timer = window.setTimeout(() => {
      setSucceeded(false);
      onClose();
    }, SUCCESS_CLOSE_DELAY_MS);
    return () => window.clearTimeout(timer);
  }, [succeeded, onClose]);

  const reset = () => {
    setCurrent('');
    setNext('');
    setConfirm('');
    setChecksShown(false);
    setServerError(null);
  };

  const close = () => {
    if (submitting) return;
    reset();
    setSucceeded(false);
    onClose();
  };

  const submit = async () => {
    if (submitting) return;
    setServerError(null);
    setChecksShown(true);
    if (validatePasswordChange({ current, next, confirm })) return;
    setSubmitting(true);
    try {
      await changePassword({ userid: userId, old_password: current, new_password: next });
      reset();
      setSucceeded(true);
    } catch (failure) {
      setServerError(passwordErrorMessage(failure));
    } finally {
      setSubmitting(false);
    }
  };

  const { onSubmit, onKeyDown } = formSubmitHandlers(submit);

  const error = serverError ?? (checksShown ? validatePasswordChange({ current, next, confirm }) : null);
  const dismissError = () => {
    setServerError(null);
    setChecksShown(false);
  };
  const mismatch = confirm.length > 0 && confirm !== next;
  const canSubmit = !submitting && passwordIsValid(next) && next === confirm;

  return (
    <Dialog
      open={open}
      onClose={close}
      aria-labelledby="change-password-title"
      maxWidth="xs"
      fullWidth
    >
      <form onSubmit={onSubmit} onKeyDown={onKeyDown} noValidate>
      <DialogTitle id="change-password-title">Change Password</DialogTitle>
      {/* While the change is sent its status covers the form in this dialog (spec §2's overlay
          texts): a second overlay stacked on the dialog showed the one state twice, half hidden.
          The disabled fields stay in place underneath, so the dialog keeps its size. */}
      <DialogContent sx={{ position: 'relative' }}>
        <Box sx={{ visibility: submitting ? 'hidden' : 'visible' }}>
          {succeeded && (
            <Alert severity="success" sx={{ mb: 1 }}>
              Password changed successfully
            </Alert>
          )}
          {error && (
            <Alert severity="error" sx={{ mb: 1 }} onClose={dismissError}>
              {error}
            </Alert>
          )}
          <PasswordField label="Current Password" value={current} onChange={setCurrent} disabled={submitting} autoComplete="current-password" autoFocus />
          <PasswordField label="New Password" value={next} onChange={setNext} disabled={submitting} autoComplete="new-password" />
          <PasswordField
            label="Confirm New Password"
            value={confirm}
            onChange={setConfirm}
            disabled={submitting}
            autoComplete="new-password"
            error={mismatch}
            helperText={mismatch ? PASSWORDS_DO_NOT_MATCH : undefined}
          />
          <PasswordChecklist password={next} />
        </Box>
        {submitting && (
          <Box sx={{ position: 'absolute', inset: 0, display: 'flex', alignItems: 'center', justifyContent: 'center', px: 3 }}>
            <BusyStatus title="Changing password..." subtitle="Please wait while we process your request" />
          </Box>
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={close} disabled={submitting}>
          Cancel
        </Button>
        <Button type="submit" variant="contained" disabled={!canSubmit}>
          Change Password
        </Button>
      </DialogActions>
      </form>
    </Dialog>
  );
}
