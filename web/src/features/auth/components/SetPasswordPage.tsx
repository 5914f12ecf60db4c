import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import { isAxiosError } from 'axios';
import { useEffect, useState } from 'react';
import { formSubmitHandlers } from '../../../lib/form-submit';
import { Link as RouterLink, useLocation, useNavigate } from 'react-router';
import { BusyStatus } from '../../../components/BusyOverlay';
import { ColorModeToggle } from '../../../components/ColorModeToggle';
import { Logo } from '../../../components/Logo';
import { useNotify } from '../../../components/use-notify';
import { formatUserError } from '../../../lib/error-mapping';
import { PasswordChecklist, PasswordField, passwordIsValid, PASSWORDS_DO_NOT_MATCH, validateNewPassword } from '../../account';
import { describePasswordLink, setPasswordWithLink } from '../api/auth-api';

export const PASSWORD_SET_TOAST = 'Your password has been set. Log in with your new password.';
export const NO_TOKEN_MESSAGE = 'This page needs the whole link your administrator sent you. Open that link again, or ask your administrator for a new one.';

/** The secret of a reset link: `/set-password#token=…` (the fragment never reaches a server). */
export function tokenFromHash(hash: string): string {
  return new URLSearchParams(hash.replace(/^#/, '')).get('token') ?? '';
}

/** The server's reason in its own words (a used or expired link, a weak password); otherwise spec §8's. */
function reasonOf(error: unknown): string {
  if (isAxiosError<{ message?: unknown }>(error) && error.response?.status === 422) {
    const message = error.response.data?.message;
    if (typeof message === 'string' && message) return message;
  }
  return formatUserError(error);
}

/** Where a reset link leads: a new password chosen under spec §5's rules, then the login screen. */
export default function SetPasswordPage() {
  const location = useLocation();
  const navigate = useNavigate();
  const notify = useNotify();
  // Read once: the address bar drops the secret below, and this state keeps it for the submit.
  const [token] = useState(() => tokenFromHash(location.hash));
  const [next, setNext] = useState('');
  const [confirm, setConfirm] = useState('');
  const [checksShown, setChecksShown] = useState(false);
  const [serverError, setServerError] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);

  // The secret leaves the address bar and the history entry at once: whoever uses the browser
  // next must not find a working link in it.
  useEffect(() => {
    if (location.hash) void navigate({ pathname: location.pathname, search: location.search }, { replace: true });
  }, [location.hash, location.pathname, location.search, navigate]);

  // The link is checked when the page opens (issue 36): the page names the account, and a used or
  // expired link is said before anyone types a password for nothing.
  const [link, setLink] = useState<{ username: string } | { refused: string } | null>(null);
  useEffect(() => {
    if (!token) return undefined;
    let current = true;
    describePasswordLink(token).then(
      (described) => current && setLink({ username: described.username }),
      (failure: unknown) => current && setLink({ refused: reasonOf(failure) }),
    );
    return () => {
      current = false;
    };
  }, [token]);
  const refused = link !== null && 'refused' in link ? link.refused : null;
  const username = link !== null && 'username' in link ? link.username : null;

  const submit = async () => {
    if (submitting || !token) return;
    setServerError(null);
    setChecksShown(true);
    if (validateNewPassword({ next, confirm })) return;
    setSubmitting(true);
    try {
      await setPasswordWithLink({ token, new_password: next });
      notify.success(PASSWORD_SET_TOAST);
      void navigate('/', { replace: true });
    } catch (failure) {
      setServerError(reasonOf(failure));
      setSubmitting(false);
    }
  };

  const { onSubmit, onKeyDown } = formSubmitHandlers(submit);

  const error = serverError ?? (checksShown ? validateNewPassword({ next, confirm }) : null);
  const mismatch = confirm.length > 0 && confirm !== next;
  const usable = Boolean(token) && refused === null;
  const canSubmit = usable && !submitting && passwordIsValid(next) && next === confirm;

  return (
    <Box component="main" sx={{ minHeight: '100vh', display: 'flex', flexDirection: 'column', p: { xs: 2, sm: 4 }, bgcolor: 'background.default' }}>
      <Box sx={{ display: 'flex', justifyContent: 'space-between', alignItems: 'center' }}>
        <Logo />
        <ColorModeToggle />
      </Box>
      <Box sx={{ flex: 1, display: 'flex', alignItems: 'center', justifyContent: 'center' }}>
        <Paper component="form" onSubmit={onSubmit} onKeyDown={onKeyDown} noValidate variant="outlined" sx={{ p: { xs: 3, sm: 5 }, width: '100%', maxWidth: 440 }}>
          <Typography variant="h4" component="h1" sx={{ overflowWrap: 'anywhere' }}>
            {username === null ? 'Set your password' : `Set a password for ${username}`}
          </Typography>
          <Typography variant="body1" color="text.secondary" sx={{ mt: 1, mb: 2 }}>
            Choose a new password for the Secure Upload Portal. This link works once.
          </Typography>
          {refused && (
            <Alert severity="error" sx={{ mb: 1 }}>
              {refused}
            </Alert>
          )}
          {!token && (
            <Alert severity="error" sx={{ mb: 1 }}>
              {NO_TOKEN_MESSAGE}
            </Alert>
          )}
          {error && (
            <Alert severity="error" sx={{ mb: 1 }} onClose={() => {
                setServerError(null);
                setChecksShown(false);
              }}>
              {error}
            </Alert>
          )}
          {submitting ? (
            <Box sx={{ py: 4 }}>
              <BusyStatus title="Setting password..." subtitle="Please wait while we process your request" />
            </Box>
          ) : (
            <>
              <PasswordField label="New Password" value={next} onChange={setNext} disabled={!usable} autoComplete="new-password" autoFocus />
              <PasswordField
                label="Confirm New Password"
                value={confirm}
                onChange={setConfirm}
                disabled={!usable}
                autoComplete="new-password"
                error={mismatch}
                helperText={mismatch ? PASSWORDS_DO_NOT_MATCH : undefined}
              />
              <PasswordChecklist password={next} />
            </>
          )}
          <Button type="submit" variant="contained" size="large" fullWidth disabled={!canSubmit} sx={{ mt: 2 }}>
            Set Password
          </Button>
          <Box sx={{ mt: 2, textAlign: 'center' }}>
            <Link component={RouterLink} to="/" variant="body2">
              Back to the login screen
            </Link>
          </Box>
        </Paper>
      </Box>
    </Box>
  );
}
