import { DEIDENTIFICATION_OPTIONS, type TDeidentificationOption, type TDeidentificationPolicy, type TDeidentificationProfile } from '@portal/contract';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import FormControl from '@mui/material/FormControl';
import FormControlLabel from '@mui/material/FormControlLabel';
import FormGroup from '@mui/material/FormGroup';
import FormLabel from '@mui/material/FormLabel';
import Radio from '@mui/material/Radio';
import RadioGroup from '@mui/material/RadioGroup';
import Typography from '@mui/material/Typography';
import useMediaQuery from '@mui/material/useMediaQuery';
import type { Theme } from '@mui/material/styles';
import { useId, useState, type FormEvent } from 'react';
import { BusyStatus } from '../../../components/BusyOverlay';
import { useNotify } from '../../../components/use-notify';
import { formatUserError } from '../../../lib/error-mapping';
import { useSetDeidentificationPolicy } from '../api/set-deidentification-policy';
import { OPTION_TEXTS } from '../deidentification-options';

interface DeidentificationDialogProps {
  projectId: number;
  policy: TDeidentificationPolicy;
  onClose: () => void;
}

/** A SysAdmin sets the project's profile and options; it stays open with the server's reason when refused. */
export default function DeidentificationDialog({ projectId, policy, onClose }: DeidentificationDialogProps) {
  const titleId = useId();
  const phone = useMediaQuery((theme: Theme) => theme.breakpoints.down('sm'), { noSsr: true });
  const save = useSetDeidentificationPolicy(projectId);
  const notify = useNotify();
  const [profile, setProfile] = useState<TDeidentificationProfile>(policy.profile);
  // Options ticked stay ticked while the profile is off, so turning basic on again restores them.
  const [options, setOptions] = useState<ReadonlySet<TDeidentificationOption>>(new Set(policy.options));
  const [error, setError] = useState<string | null>(null);
  const busy = save.isPending;

  const toggle = (option: TDeidentificationOption, on: boolean) => {
    const next = new Set(options);
    if (on) next.add(option);
    else next.delete(option);
    setOptions(next);
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    setError(null);
    try {
      // The server takes options only with the basic profile, in the standard's order.
      const chosen = profile === 'off' ? [] : DEIDENTIFICATION_OPTIONS.filter((option) => options.has(option));
      await save.mutateAsync({ profile, options: chosen });
      notify.success('De-identification policy saved');
      onClose();
    } catch (failure) {
      setError(formatUserError(failure));
    }
  };

  return (
    <Dialog open onClose={busy ? undefined : onClose} aria-labelledby={titleId} maxWidth="sm" fullWidth fullScreen={phone}>
      <form onSubmit={(event) => void submit(event)} noValidate>
        <DialogTitle id={titleId}>De-identification</DialogTitle>
        <DialogContent>
          {error && (
            <Alert severity="error" sx={{ mb: 1 }}>
              {error}
            </Alert>
          )}
          <FormControl disabled={busy} sx={{ display: 'block' }}>
            <FormLabel id={`${titleId}-profile`}>Profile</FormLabel>
            <RadioGroup
              aria-labelledby={`${titleId}-profile`}
              value={profile}
              onChange={(event) => setProfile(event.target.value === 'basic' ? 'basic' : 'off')}
            >
              <FormControlLabel value="off" control={<Radio />} label="Off: patient identity is kept as sent" />
              <FormControlLabel value="basic" control={<Radio />} label="Basic: identity is removed with the Basic Application Level Confidentiality Profile" />
            </RadioGroup>
          </FormControl>
          {/* The legend stays readable while Off (a disabled legend fails contrast): only the boxes are disabled. */}
          <FormControl component="fieldset" sx={{ mt: 2, display: 'block' }}>
            <FormLabel component="legend" focused={false} sx={{ color: 'text.primary' }}>
              {profile === 'off' ? 'Options of the basic profile (choose Basic to use them)' : 'Options of the basic profile'}
            </FormLabel>
            <FormGroup>
              {DEIDENTIFICATION_OPTIONS.map((option) => (
                <FormControlLabel
                  key={option}
                  disabled={busy || profile === 'off'}
                  sx={{ alignItems: 'flex-start', mt: 0.5 }}
                  control={<Checkbox checked={options.has(option)} onChange={(event) => toggle(option, event.target.checked)} sx={{ pt: 0.25 }} />}
                  label={
                    <>
                      <Typography variant="body2">{OPTION_TEXTS[option].label}</Typography>
                      <Typography variant="caption" color="text.secondary" component="span" sx={{ display: 'block' }}>
                        {OPTION_TEXTS[option].explanation}
                      </Typography>
                    </>
                  }
                />
              ))}
            </FormGroup>
          </FormControl>
          <Typography variant="body2" color="text.secondary" sx={{ mt: 2 }}>
            {`As in Table E.1-1 of ${policy.edition}. A change applies to what arrives from now on; what is stored stays as it was stored.`}
          </Typography>
          {busy && <BusyStatus title="Saving de-identification policy..." layout="inline" />}
        </DialogContent>
        <DialogActions sx={{ px: 3, pb: 2 }}>
          <Button onClick={onClose} disabled={busy}>
            Cancel
          </Button>
          <Button type="submit" variant="contained" disabled={busy}>
            Save
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
}
