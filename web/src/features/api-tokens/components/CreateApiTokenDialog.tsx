import Autocomplete from '@mui/material/Autocomplete';
import Box from '@mui/material/Box';
import DialogContentText from '@mui/material/DialogContentText';
import FormControl from '@mui/material/FormControl';
import FormControlLabel from '@mui/material/FormControlLabel';
import FormLabel from '@mui/material/FormLabel';
import Radio from '@mui/material/Radio';
import RadioGroup from '@mui/material/RadioGroup';
import TextField from '@mui/material/TextField';
import { API_TOKEN_SCOPES, type TApiTokenScope, type TCreatedApiToken, type TProject } from '@portal/contract';
import { useId, useState } from 'react';
import { SecretCreationDialog } from '../../../components/SecretCreationDialog';
import { ShownOnceSecret } from '../../../components/ShownOnceSecret';
import { refusalWithReason } from '../../../lib/error-mapping';
import { formatDate } from '../../../lib/format';
import { useProjects } from '../../projects';
import { useCreateApiToken } from '../api/api-tokens';
import { dateInDays, DEFAULT_EXPIRY_DAYS, MAX_EXPIRY_DAYS, SCOPE_HINTS, SCOPE_LABELS } from '../token-words';

/**
 * A new personal API token: its name, expiry (90 days unless changed, a year at most), scope and
 * optionally its projects. The secret the server answers is shown once, here: it keeps only a hash.
 */
export function CreateApiTokenDialog({ onClose }: { onClose: () => void }) {
  const scopeId = useId();
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
      setError(refusalWithReason(failure, [400, 404, 422]));
    }
  };

  return (
    <SecretCreationDialog
      title="New API Token"
      createdTitle="Token created"
      submitLabel="Create Token"
      busyTitle="Creating token..."
      pending={create.isPending}
      error={error}
      onSubmit={() => void submit()}
      onClose={onClose}
      created={
        created && (
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
        )
      }
    >
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
        <FormLabel id={`${scopeId}-scope`}>Scope</FormLabel>
        <RadioGroup aria-labelledby={`${scopeId}-scope`} value={scope} onChange={(e) => setScope(e.target.value as TApiTokenScope)}>
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
    </SecretCreationDialog>
  );
}
