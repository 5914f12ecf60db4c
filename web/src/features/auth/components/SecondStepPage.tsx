import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import type { TLoginWithRecoveryCodes, TTwoFactorSetup } from '@portal/contract';
import { isAxiosError } from 'axios';
import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { ColorModeToggle } from '../../../components/ColorModeToggle';
import { Logo } from '../../../components/Logo';
import { AuthenticatorSetup, RecoveryCodes, serverWords } from '../../two-factor';
import { completeSecondStep, confirmEnrolmentAtLogin, startEnrolmentAtLogin } from '../api/second-step-api';
import { useSession, type PendingSecondStep } from '../session-context';
import { LoginIllustration } from './LoginIllustration';

/** A sign-in's challenge stopped working (expired, used): back to the password, saying why. */
const isExpired = (failure: unknown) => isAxiosError(failure) && failure.response?.status === 401;

/** After the right password: the code of the authenticator app (or a recovery code), or a mandatory enrolment. */
export function SecondStepPage({ pending }: { pending: PendingSecondStep }) {
  return (
    <Box component="main" sx={{ minHeight: '100vh', display: 'flex', bgcolor: 'background.default' }}>
      <Box sx={{ flex: 1, display: 'flex', flexDirection: 'column', p: { xs: 2, sm: 4 } }}>
        <Box sx={{ display: 'flex', justifyContent: 'space-between', alignItems: 'center' }}>
          <Logo />
          <ColorModeToggle />
        </Box>
        <Box sx={{ flex: 1, display: 'flex', alignItems: 'center', justifyContent: 'center', py: 2 }}>
          <Paper variant="outlined" sx={{ p: { xs: 3, sm: 5 }, width: '100%', maxWidth: pending.enrolmentRequired ? 520 : 420 }}>
            {pending.enrolmentRequired ? <EnrolmentStep challenge={pending.challenge} /> : <CodeStep challenge={pending.challenge} />}
          </Paper>
        </Box>
      </Box>
      <Box sx={{ flex: 1, display: { xs: 'none', md: 'block' } }}>
        <LoginIllustration />
      </Box>
    </Box>
  );
}

function CodeStep({ challenge }: { challenge: string }) {
  const { adopt, cancelSecondStep } = useSession();
  const [recovery, setRecovery] = useState(false);
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await adopt(await completeSecondStep(challenge, recovery ? { recovery_code: value.trim() } : { code: value.trim() }));
    } catch (failure) {
      if (isExpired(failure)) {
        cancelSecondStep(serverWords(failure));
        return;
      }
      setError(serverWords(failure));
      setValue('');
    } finally {
      setBusy(false);
    }
  };
  const switchTo = (toRecovery: boolean) => {
    setRecovery(toRecovery);
    setValue('');
    setError(null);
  };
  const ready = recovery ? value.trim().length > 0 : /^\d{6}$/.test(value);

  return (
    <Box component="form" onSubmit={(e) => void submit(e)} noValidate>
      <Typography variant="h5" component="h1" sx={{ fontWeight: 600 }}>
        Two-factor sign-in
      </Typography>
      <Typography variant="body1" color="text.secondary" sx={{ mt: 1, mb: 2 }}>
        {recovery
          ? 'Enter one of the recovery codes you kept when you set up two-factor sign-in. Each code works once.'
          : 'Enter the 6-digit code from your authenticator app'}
      </Typography>
      {error && (
        <Alert severity="error" sx={{ mb: 2 }}>
          {error}
        </Alert>
      )}
      {recovery ? (
        <TextField key="recovery" label="Recovery code" name="recovery_code" value={value} onChange={(e) => setValue(e.target.value)} autoComplete="off" fullWidth autoFocus margin="normal" />
      ) : (
        <TextField
          key="code"
          label="6-digit code"
          name="code"
          value={value}
          onChange={(e) => setValue(e.target.value.replace(/[^\d]/g, '').slice(0, 6))}
          autoComplete="one-time-code"
          fullWidth
          autoFocus
          margin="normal"
          slotProps={{ htmlInput: { inputMode: 'numeric', pattern: '[0-9]{6}', maxLength: 6 } }}
        />
      )}
      <Button
        type="submit"
        variant="contained"
        size="large"
        fullWidth
        disabled={busy || !ready}
        sx={{ mt: 2 }}
        startIcon={busy ? <CircularProgress size={18} color="inherit" aria-hidden="true" /> : undefined}
      >
        Verify
      </Button>
      <Box sx={{ display: 'flex', justifyContent: 'space-between', gap: 2, mt: 2, flexWrap: 'wrap' }}>
        <Link component="button" type="button" variant="body2" onClick={() => switchTo(!recovery)}>
          {recovery ? 'Use the code from your app instead' : 'Use a recovery code instead'}
        </Link>
        <Link component="button" type="button" variant="body2" onClick={() => cancelSecondStep()}>
          Back to sign in
        </Link>
      </Box>
      {recovery && (
        <Typography variant="body2" color="text.secondary" sx={{ mt: 2 }}>
          Lost your phone and your recovery codes? Ask your company’s administrator to reset your two-factor sign-in.
        </Typography>
      )}
    </Box>
  );
}

/** The company requires two-factor sign-in and this user has none yet: set it up, keep the codes, then in. */
function EnrolmentStep({ challenge }: { challenge: string }) {
  const { adopt, cancelSecondStep } = useSession();
  const [setup, setSetup] = useState<TTwoFactorSetup | null>(null);
  const [done, setDone] = useState<TLoginWithRecoveryCodes | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    startEnrolmentAtLogin(challenge)
      .then((answer) => {
        if (live) setSetup(answer);
      })
      .catch((failure: unknown) => {
        if (!live) return;
        if (isExpired(failure)) cancelSecondStep(serverWords(failure));
        else setError(serverWords(failure));
      });
    return () => {
      live = false;
    };
  }, [challenge, cancelSecondStep]);

  const confirm = async (code: string) => {
    try {
      setDone(await confirmEnrolmentAtLogin(challenge, code));
    } catch (failure) {
      if (isExpired(failure)) {
        cancelSecondStep(serverWords(failure));
        return;
      }
      throw failure;
    }
  };

  let body: ReactNode;
  if (done) {
    body = (
      <>
        <Typography variant="body1" color="text.secondary" sx={{ mt: 1, mb: 2 }}>
          Two-factor sign-in is on. From now on you sign in with your password and a code from the app.
        </Typography>
        <RecoveryCodes codes={done.recovery_codes} />
        <Button variant="contained" size="large" fullWidth sx={{ mt: 3 }} onClick={() => void adopt({ token: done.token, user: done.user })}>
          Continue to the portal
        </Button>
      </>
    );
  } else if (setup) {
    body = (
      <>
        <Typography variant="body1" color="text.secondary" sx={{ mt: 1, mb: 2 }}>
          Your company requires two-factor sign-in. Set it up now to continue.
        </Typography>
        <AuthenticatorSetup setup={setup} onConfirm={confirm} secondary={<Button onClick={() => cancelSecondStep()}>Sign out</Button>} />
      </>
    );
  } else {
    body = error ? (
      <Alert severity="error" sx={{ mt: 2 }} action={<Button onClick={() => cancelSecondStep()}>Back to sign in</Button>}>
        {error}
      </Alert>
    ) : (
      <Box sx={{ display: 'flex', justifyContent: 'center', py: 4 }}>
        <CircularProgress aria-label="Preparing your authenticator set-up" />
      </Box>
    );
  }
  return (
    <>
      <Typography variant="h5" component="h1" sx={{ fontWeight: 600 }}>
        Set up two-factor sign-in
      </Typography>
      {body}
    </>
  );
}
