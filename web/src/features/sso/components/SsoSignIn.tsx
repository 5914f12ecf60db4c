import LoginIcon from '@mui/icons-material/Login';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Divider from '@mui/material/Divider';
import Typography from '@mui/material/Typography';
import type { TLoginResponse } from '@portal/contract';
import { useEffect, useState } from 'react';
import { useDebouncedValue } from '../../../lib/use-debounced-value';
import type { DiscoveredSso } from '../api/sso-api';
import { useSsoReturn } from '../use-sso-return';

const LOOKUP_DELAY_MS = 400;

/**
 * The login screen's part for companies that sign in through their own identity provider: once the
 * typed username belongs to one, 'Sign in with <company>'; and, back from the provider, the
 * exchange of its one-time code for the session, or the reason it failed.
 */
export function SsoSignIn({ username, onSignedIn }: { username: string; onSignedIn: (answer: TLoginResponse) => Promise<void> }) {
  const settled = useDebouncedValue(username.trim(), LOOKUP_DELAY_MS);
  const [found, setFound] = useState<{ username: string; sso: DiscoveredSso | null }>({ username: '', sso: null });
  const returned = useSsoReturn(onSignedIn);

  useEffect(() => {
    if (!settled) return;
    let live = true;
    // A failed look-up (too many, offline) leaves the password form as it is: nothing to show.
    // The calls load once something is typed, not with the sign-in screen (issue 36).
    import('../api/sso-api')
      .then((ssoApi) => ssoApi.discoverSso(settled))
      .then((sso) => live && setFound({ username: settled, sso }))
      .catch(() => live && setFound({ username: settled, sso: null }));
    return () => {
      live = false;
    };
  }, [settled]);

  // Only for the username as it is typed now, never a previous one's company.
  const sso = found.username === username.trim() ? found.sso : null;

  return (
    <>
      {returned.busy && (
        <Box role="status" sx={{ display: 'flex', alignItems: 'center', gap: 1.5, mt: 2 }}>
          <CircularProgress size={20} aria-hidden="true" />
          <Typography variant="body2">Signing you in…</Typography>
        </Box>
      )}
      {returned.error && (
        <Alert severity="error" sx={{ mt: 2 }}>
          {returned.error}
        </Alert>
      )}
      {sso && (
        <>
          <Divider sx={{ my: 2 }}>or</Divider>
          {!sso.password_login_allowed && (
            <Typography variant="body2" color="text.secondary" sx={{ mb: 1.5 }}>
              {sso.company_name} users sign in through their company.
            </Typography>
          )}
          <Button
            type="button"
            variant="outlined"
            size="large"
            fullWidth
            startIcon={<LoginIcon />}
            onClick={() => window.location.assign(sso.start_url)}
          >
            Sign in with {sso.company_name}
          </Button>
        </>
      )}
    </>
  );
}
