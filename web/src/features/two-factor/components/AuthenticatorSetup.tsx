import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import type { TTwoFactorSetup } from '@portal/contract';
import { useState, type FormEvent, type ReactNode } from 'react';
import { groupedSecret, serverWords } from '../two-factor-words';

interface AuthenticatorSetupProps {
  setup: TTwoFactorSetup;
  /** Sends the app's first code; a refusal is shown under the field. */
  onConfirm: (code: string) => Promise<void>;
  /** Beside 'Turn on': Cancel, or Sign out at a mandatory enrolment. */
  secondary?: ReactNode;
}

/** Scan the QR code (or type the secret), then confirm with the app's first code. */
export function AuthenticatorSetup({ setup, onConfirm, secondary }: AuthenticatorSetupProps) {
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await onConfirm(code.trim());
    } catch (failure) {
      setError(serverWords(failure));
      setCode('');
    } finally {
      setBusy(false);
    }
  };

  return (
    <Box component="form" onSubmit={(e) => void submit(e)} noValidate>
      <Typography variant="body1">
        1. Scan this QR code with an authenticator app (such as Google Authenticator, Microsoft Authenticator, FreeOTP or 1Password).
      </Typography>
      <Box sx={{ display: 'flex', justifyContent: 'center', my: 2 }}>
        <Box
          component="img"
          src={setup.qr_code}
          alt="QR code to scan with your authenticator app"
          sx={{ width: 200, height: 200, borderRadius: 1, border: 1, borderColor: 'divider', bgcolor: '#fff' }}
        />
      </Box>
      <Typography variant="body2" color="text.secondary">
        Cannot scan it? Enter this key in the app instead (time-based):
      </Typography>
      <Typography
        component="p"
        aria-label="Key to enter by hand"
        data-secret={setup.secret}
        sx={{ fontFamily: 'monospace', fontSize: '1.05rem', letterSpacing: 1, wordSpacing: 4, my: 1, p: 1, bgcolor: 'action.hover', borderRadius: 1 }}
      >
        {groupedSecret(setup.secret)}
      </Typography>
      <Typography variant="body1" sx={{ mt: 2 }}>
        2. Enter the 6-digit code the app shows for the portal.
      </Typography>
      {error && (
        <Alert severity="error" sx={{ mt: 2 }}>
          {error}
        </Alert>
      )}
      <TextField
        label="6-digit code"
        name="code"
        value={code}
        onChange={(e) => setCode(e.target.value.replace(/[^\d]/g, '').slice(0, 6))}
        autoComplete="one-time-code"
        fullWidth
        margin="normal"
        slotProps={{ htmlInput: { inputMode: 'numeric', pattern: '[0-9]{6}', maxLength: 6 } }}
      />
      <Box sx={{ display: 'flex', justifyContent: 'flex-end', gap: 1, mt: 1, flexWrap: 'wrap' }}>
        {secondary}
        <Button type="submit" variant="contained" disabled={busy || code.length !== 6}>
          Turn on two-factor sign-in
        </Button>
      </Box>
    </Box>
  );
}
