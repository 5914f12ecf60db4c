import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import Skeleton from '@mui/material/Skeleton';
import TextField from '@mui/material/TextField';
import useMediaQuery from '@mui/material/useMediaQuery';
import type { Theme } from '@mui/material/styles';
import type { TTwoFactorProof, TTwoFactorSetup, TTwoFactorStatus } from '@portal/contract';
import { useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { queryKeys } from '../../../api/query-keys';
import { LocalDate } from '../../../components/LocalDate';
import { useNotify } from '../../../components/use-notify';
import { confirmEnrolment, startEnrolment, useDisableTwoFactor, useNewRecoveryCodes, useTwoFactorStatus } from '../api/two-factor-api';
import { serverWords } from '../two-factor-words';
import { AuthenticatorSetup } from './AuthenticatorSetup';
import { RecoveryCodes } from './RecoveryCodes';

interface TwoFactorDialogProps {
  open: boolean;
  onClose: () => void;
}

type Stage = { kind: 'status' } | { kind: 'setup'; setup: TTwoFactorSetup } | { kind: 'codes'; codes: string[] };

/** 'Two-factor sign-in' in the avatar menu: set it up, turn it off, or get new recovery codes. */
export default function TwoFactorDialog({ open, onClose }: TwoFactorDialogProps) {
  const titleId = useId();
  const phone = useMediaQuery((theme: Theme) => theme.breakpoints.down('sm'), { noSsr: true });
  const status = useTwoFactorStatus(open);
  const queryClient = useQueryClient();
  const [stage, setStage] = useState<Stage>({ kind: 'status' });
  const [error, setError] = useState<string | null>(null);

  const begin = async () => {
    setError(null);
    try {
      setStage({ kind: 'setup', setup: await startEnrolment() });
    } catch (failure) {
      setError(serverWords(failure));
    }
  };
  const confirm = async (code: string) => {
    const codes = await confirmEnrolment(code);
    await queryClient.invalidateQueries({ queryKey: queryKeys.twoFactor });
    setStage({ kind: 'codes', codes });
  };

  return (
    <Dialog open={open} onClose={stage.kind === 'codes' ? undefined : onClose} aria-labelledby={titleId} maxWidth="sm" fullWidth fullScreen={phone}>
      <DialogTitle id={titleId}>Two-factor sign-in</DialogTitle>
      {stage.kind === 'setup' ? (
        <DialogContent>
          <AuthenticatorSetup setup={stage.setup} onConfirm={confirm} secondary={<Button onClick={onClose}>Cancel</Button>} />
        </DialogContent>
      ) : stage.kind === 'codes' ? (
        <>
          <DialogContent>
            <DialogContentText sx={{ mb: 2 }}>Two-factor sign-in is on. From now on you sign in with your password and a code from the app.</DialogContentText>
            <RecoveryCodes codes={stage.codes} />
          </DialogContent>
          <DialogActions sx={{ px: 3, pb: 2 }}>
            <Button variant="contained" onClick={onClose}>
              I have kept my recovery codes
            </Button>
          </DialogActions>
        </>
      ) : (
        <>
          <DialogContent>
            {error && (
              <Alert severity="error" sx={{ mb: 2 }}>
                {error}
              </Alert>
            )}
            {status.data ? (
              <StatusText status={status.data} />
            ) : status.error ? (
              <Alert severity="error">{serverWords(status.error)}</Alert>
            ) : (
              <Box role="progressbar" aria-label="Loading your two-factor sign-in">
                <Skeleton height={44} />
                <Skeleton height={44} />
              </Box>
            )}
            {status.data?.enabled && <ProofActions onCodes={(codes) => setStage({ kind: 'codes', codes })} />}
          </DialogContent>
          <DialogActions sx={{ px: 3, pb: 2 }}>
            <Button onClick={onClose}>Close</Button>
            {status.data && status.data.available && !status.data.enabled && (
              <Button variant="contained" onClick={() => void begin()}>
                Set up two-factor sign-in
              </Button>
            )}
          </DialogActions>
        </>
      )}
    </Dialog>
  );
}

function StatusText({ status }: { status: TTwoFactorStatus }) {
  if (!status.available) {
    return <DialogContentText>You sign in through your company’s identity provider: it decides how you prove who you are, not this portal.</DialogContentText>;
  }
  if (!status.enabled) {
    return (
      <DialogContentText>
        Two-factor sign-in is off. Turn it on to be asked, after your password, for a code from an authenticator app on your phone.
        {status.required && ' Your company requires it: you will be asked to set it up at your next sign-in.'}
      </DialogContentText>
    );
  }
  return (
    <DialogContentText>
      Two-factor sign-in is on{status.enabled_at ? <> since <LocalDate value={status.enabled_at} /></> : null}. You have {status.recovery_codes_left} unused recovery{' '}
      {status.recovery_codes_left === 1 ? 'code' : 'codes'} left.
      {status.required && ' Your company requires two-factor sign-in.'}
    </DialogContentText>
  );
}

/** Turning it off or new recovery codes: a current code from the app, or the password. */
function ProofActions({ onCodes }: { onCodes: (codes: string[]) => void }) {
  const [proof, setProof] = useState('');
  const [error, setError] = useState<string | null>(null);
  const disable = useDisableTwoFactor();
  const regenerate = useNewRecoveryCodes();
  const notify = useNotify();
  const busy = disable.isPending || regenerate.isPending;
  const body = (): TTwoFactorProof => (/^\d{6}$/.test(proof.trim()) ? { code: proof.trim() } : { password: proof });
  const run = async (action: 'disable' | 'codes') => {
    setError(null);
    try {
      if (action === 'disable') {
        await disable.mutateAsync(body());
        notify.success('Two-factor sign-in is off');
      } else {
        onCodes(await regenerate.mutateAsync(body()));
      }
      setProof('');
    } catch (failure) {
      setError(serverWords(failure));
    }
  };
  return (
    <Box sx={{ mt: 2 }}>
      <TextField
        label="A code from your app, or your password"
        type="password"
        autoComplete="off"
        value={proof}
        onChange={(e) => setProof(e.target.value)}
        fullWidth
        margin="normal"
        error={Boolean(error)}
        helperText={error ?? 'Needed to turn two-factor sign-in off or to get new recovery codes.'}
      />
      <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap', justifyContent: 'flex-end' }}>
        <Button disabled={busy || !proof} onClick={() => void run('codes')}>
          New recovery codes
        </Button>
        <Button color="error" disabled={busy || !proof} onClick={() => void run('disable')}>
          Turn off
        </Button>
      </Box>
    </Box>
  );
}
