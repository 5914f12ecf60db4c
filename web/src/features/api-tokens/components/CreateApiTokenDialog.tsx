import Alert from '@mui/material/Alert';
import Autocomplete from '@mui/material/Autocomplete';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import FormControl from '@mui/material/FormControl';
import FormControlLabel from '@mui/material/FormControlLabel';
import FormLabel from '@mui/material/FormLabel';
import Radio from '@mui/material/Radio';
import RadioGroup from '@mui/material/RadioGroup';
import TextField from '@mui/material/TextField';
import useMediaQuery from '@mui/material/useMediaQuery';
import type { Theme } from '@mui/material/styles';
import { API_TOKEN_SCOPES, type TApiTokenScope, type TCreatedApiToken, type TProject } from '@portal/contract';
import { isAxiosError } from 'axios';
import { useId, useState } from 'react';
import { BusyStatus } from '../../../components/BusyOverlay';
import { ShownOnceSecret } from '../../../components/ShownOnceSecret';
import { formatUserError, mapApiError } from '../../../lib/error-mapping';
import { formatDate } from '../../../lib/format';
import { useProjects } from '../../projects';
import { useCreateApiToken } from '../api/api-tokens';
import { dateInDays, DEFAULT_EXPIRY_DAYS, MAX_EXPIRY_DAYS, SCOPE_HINTS, SCOPE_LABELS } from '../token-words';

/** The server's reason where it gives one ('A token may live at most one year: …'). */
function refusalText(error: unknown): string {
  if (isAxiosError<{ message?: unknown }>(error) && error.response && [400, 404, 422].includes(error.response.status)) {
    const reason = error.response.data?.message;
    if (typeof reason === 'string' && reason) return `${mapApiError(error).message}: ${reason}`;
  }
  return formatUserError(error);
}

/**
 * A new personal API token: its name, expiry (90 days unless changed, a year at most), scope and
 * optionally its projects. The secret the server answers is shown once, here: it keeps only a hash.
 */
export function CreateApiTokenDialog({ onClose }: { onClose: () => void }) {
  const titleId = useId();
  const phone = useMediaQuery((theme: Theme) => theme.breakpoints.down('sm'), { noSsr: true });
  const create = useCreateApiToken();
  const projects = useProjects();
  const [name, setName] = useState('');
  const [expires, setExpires] = useState(() => dateInDays(DEFAULT_EXPIRY_DAYS));
  const [scope, setScope] = useState<TApiTokenScope>('read');
  const [only, setOnly] = useState<TProject[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<TCreatedApiToken | null>(null);
  const earliest = dateInDays(1);
  const latest = dateInDays(MAX_EXPIRY_DAYS);

  const submit = async () => {
    setError(null);
    if (!name.trim()) return setError('Enter a name that says what the token is for');
    if (!expires) return setError('Choose the date the token stops working');
    if (expires < earliest || expires > latest) return setError(`Choose an expiry between ${formatDate(earliest)} and ${formatDate(latest)}`);
    try {
      const body = { name: name.trim(), expires_at: expires, scope, ...(only.length > 0 ? { projects: only.map((p) => p.id) } : {}) };
      setCreated((await create.mutateAsync(body)) ?? null);
    } catch (failure) {
      setError(refusalText(failure));
    }
  };
  const close = () => {
    if (!create.isPending) onClose();
  };

  return (
    <Dialog
      open
      // A click beside the shown token would lose it for good: only Done and Esc close it then.
      onClose={(_event, why) => (created && why === 'backdropClick' ? undefined : close())}
      aria-labelledby={titleId}
      maxWidth="sm"
      fullWidth
      fullScreen={phone}
    >
      <DialogTitle id={titleId}>{created ? 'Token created' : 'New API Token'}</DialogTitle>
      <DialogContent>
        {!created && (
          <Box component="form" noValidate onSubmit={(e) => (e.preventDefault(), void submit())}>
            <TextField
              label="Name"
              placeholder="Eg: Nightly PACS export"
              value={name}
              onChange={(e) => setName(e.target.value)}
              fullWidth
              required
              margin="dense"
              autoFocus
              disabled={create.isPending}
              helperText="What the token is for, so you recognise it in the list"
              slotProps={{ htmlInput: { maxLength: 255 } }}
            />
            <TextField
              label="Expires"
              type="date"
              value={expires}
              onChange={(e) => setExpires(e.target.value)}
              fullWidth
              required
              margin="dense"
              disabled={create.isPending}
              helperText={`It works through the end of that day (UTC); at most one year, until ${formatDate(latest)}`}
              slotProps={{ inputLabel: { shrink: true }, htmlInput: { min: earliest, max: latest } }}
            />
            <FormControl sx={{ mt: 2 }} disabled={create.isPending}>
              <FormLabel id={`${titleId}-scope`}>Scope</FormLabel>
              <RadioGroup aria-labelledby={`${titleId}-scope`} value={scope} onChange={(e) => setScope(e.target.value as TApiTokenScope)}>
                {API_TOKEN_SCOPES.map((value) => (
                  <FormControlLabel
                    key={value}
                    value={value}
                    control={<Radio />}
                    label={
                      <Box sx={{ py: 0.5 }}>
                        {SCOPE_LABELS[value]}
                        <DialogContentText variant="body2" component="span" sx={{ display: 'block' }}>
                          {SCOPE_HINTS[value]}
                        </DialogContentText>
                      </Box>
                    }
                  />
                ))}
              </RadioGroup>
            </FormControl>
            <Autocomplete
              multiple
              options={projects.data ?? []}
              loading={projects.isPending}
              value={only}
              onChange={(_e, value) => setOnly(value)}
              getOptionLabel={(p) => p.name}
              isOptionEqualToValue={(a, b) => a.id === b.id}
              disabled={create.isPending}
              renderInput={(params) => (
                <TextField {...params} label="Only these projects" margin="dense" helperText="Leave empty for every project you can reach" />
              )}
              sx={{ mt: 1 }}
            />
            {error && (
              <Alert severity="error" sx={{ mt: 2 }}>
                {error}
              </Alert>
            )}
            {create.isPending && <BusyStatus title="Creating token..." layout="inline" />}
          </Box>
        )}
        {created && (
          <>
            <ShownOnceSecret
              warning="This token is shown only once. Copy it now and keep it where your script reads it (a file only you can read): the portal keeps only a fingerprint of it and cannot show it again."
              label="Token"
              value={created.token}
              copyLabel="Copy Token"
              noun="the token"
            />
            <DialogContentText variant="body2">Send it with each request as the header Authorization: Bearer followed by the token.</DialogContentText>
            <DialogContentText variant="body2">{`Expires: ${formatDate(created.expires_at)}`}</DialogContentText>
          </>
        )}
      </DialogContent>
      <DialogActions sx={{ px: 3, pb: 2 }}>
        {created ? (
          <Button variant="contained" onClick={onClose}>
            Done
          </Button>
        ) : (
          <>
            <Button onClick={close} disabled={create.isPending}>
              Cancel
            </Button>
            <Button variant="contained" onClick={() => void submit()} disabled={create.isPending}>
              Create Token
            </Button>
          </>
        )}
      </DialogActions>
    </Dialog>
  );
}
