import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import { useId, useState } from 'react';
import { BusyStatus } from '../../../components/BusyOverlay';
import { ShownOnceSecret } from '../../../components/ShownOnceSecret';
import { formatDateTime } from '../../../lib/format';
import { adminErrorText } from '../admin-errors';
import { useCreateResetLink, type ResetLink } from '../api/reset-password';

export interface LinkTarget {
  id: number;
  username: string;
  firstname: string;
  lastname: string;
}

interface ResetLinkDialogProps {
  user: LinkTarget;
  /** 'created': the user was just made and has no password yet; 'reset': they had one. */
  reason: 'created' | 'reset';
  onClose: () => void;
}

/**
 * Makes a single-use link for a user to set a password and shows it once: the server keeps only
 * its hash, so closing this dialog is the last time anyone sees it. Asks first, since a new link
 * replaces any older one.
 */
export function ResetLinkDialog({ user, reason, onClose }: ResetLinkDialogProps) {
  const titleId = useId();
  const create = useCreateResetLink();
  const [link, setLink] = useState<ResetLink | null>(null);
  const [error, setError] = useState<string | null>(null);
  const name = `${user.firstname} ${user.lastname}`.trim() || user.username;

  const make = async () => {
    setError(null);
    try {
      setLink(await create.mutateAsync(user.id));
    } catch (failure) {
      setError(adminErrorText(failure));
    }
  };
  const close = () => {
    if (create.isPending) return;
    setLink(null);
    create.reset();
    onClose();
  };

  return (
    <Dialog
      open
      // A click beside the shown link would lose it for good: only Done and Esc close it then.
      onClose={(_event, why) => (link && why === 'backdropClick' ? undefined : close())}
      aria-labelledby={titleId}
      maxWidth="sm"
      fullWidth
    >
      <DialogTitle id={titleId}>{link ? `Password link for ${name}` : reason === 'created' ? 'Make a password link?' : 'Reset password?'}</DialogTitle>
      <DialogContent>
        {!link && (
          <>
            <DialogContentText>
              {reason === 'created'
                ? `${name} (${user.username}) cannot sign in until they choose a password. Make a single-use link for them to set one?`
                : `Make a single-use link for ${name} (${user.username}) to set a new password? A link made earlier stops working; their current password works until they use the new link.`}
            </DialogContentText>
            {error && (
              <Alert severity="error" sx={{ mt: 2 }}>
                {error}
              </Alert>
            )}
            {create.isPending && <BusyStatus title="Making the link..." layout="inline" />}
          </>
        )}
        {link && (
          <>
            <ShownOnceSecret
              warning={`This link is shown only once. Copy it now and send it to ${user.firstname || name} through a channel you trust. It works once, until ${formatDateTime(link.expires_at)}.`}
              label="Password link"
              value={link.reset_url}
              copyLabel="Copy Link"
              noun="the link"
            />
            <DialogContentText variant="body2">{`Expires: ${formatDateTime(link.expires_at)}`}</DialogContentText>
          </>
        )}
      </DialogContent>
      <DialogActions>
        {link ? (
          <Button variant="contained" onClick={close}>
            Done
          </Button>
        ) : (
          <>
            <Button onClick={close} disabled={create.isPending}>
              Cancel
            </Button>
            <Button variant="contained" onClick={() => void make()} disabled={create.isPending}>
              Make Link
            </Button>
          </>
        )}
      </DialogActions>
    </Dialog>
  );
}
