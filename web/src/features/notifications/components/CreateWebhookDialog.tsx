import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import MenuItem from '@mui/material/MenuItem';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import useMediaQuery from '@mui/material/useMediaQuery';
import type { Theme } from '@mui/material/styles';
import type { TCreatedWebhook, TNotificationEvent } from '@portal/contract';
import { isAxiosError } from 'axios';
import { useId, useState } from 'react';
import { BusyStatus } from '../../../components/BusyOverlay';
import { ShownOnceSecret } from '../../../components/ShownOnceSecret';
import { formatUserError, mapApiError } from '../../../lib/error-mapping';
import { useCreateWebhook } from '../api/webhooks';
import { EventChoices } from './EventChoices';

export interface CompanyChoice {
  id: number;
  companyname: string;
}

const EVERY_COMPANY = 'all';

/** The server's reason where it gives one ('The address 10.1.2.3 is on a … private … network'). */
function refusalText(error: unknown): string {
  if (isAxiosError<{ message?: unknown }>(error) && error.response && [400, 403, 404, 422].includes(error.response.status)) {
    const reason = error.response.data?.message;
    if (typeof reason === 'string' && reason) return `${mapApiError(error).message}: ${reason}`;
  }
  return formatUserError(error);
}

/**
 * A new endpoint: its address, its events and (a SysAdmin's) the company it hears. The signing
 * secret the server answers is shown once, here: it is kept sealed and never shown again.
 */
export function CreateWebhookDialog({ sysAdmin, companies, onClose }: { sysAdmin: boolean; companies: readonly CompanyChoice[]; onClose: () => void }) {
  const titleId = useId();
  const phone = useMediaQuery((theme: Theme) => theme.breakpoints.down('sm'), { noSsr: true });
  const create = useCreateWebhook();
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<TNotificationEvent[]>(['delivery.completed', 'delivery.processed']);
  const [company, setCompany] = useState<string>(EVERY_COMPANY);
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<TCreatedWebhook | null>(null);

  const submit = async () => {
    setError(null);
    if (!url.trim()) return setError('Enter the address the events are sent to');
    if (events.length === 0) return setError('Choose at least one event');
    try {
      const body = { url: url.trim(), events, ...(sysAdmin ? { company_id: company === EVERY_COMPANY ? null : Number(company) } : {}) };
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
      // A click beside the shown secret would lose it for good: only Done and Esc close it then.
      onClose={(_event, why) => (created && why === 'backdropClick' ? undefined : close())}
      aria-labelledby={titleId}
      maxWidth="sm"
      fullWidth
      fullScreen={phone}
    >
      <DialogTitle id={titleId}>{created ? 'Webhook created' : 'Add Webhook'}</DialogTitle>
      <DialogContent>
        {!created && (
          <Box component="form" noValidate onSubmit={(e) => (e.preventDefault(), void submit())}>
            <TextField
              label="Address"
              placeholder="https://hooks.example.org/portal"
              value={url}
              onChange={(e) => setUrl(e.target.value)}
              fullWidth
              required
              margin="dense"
              autoFocus
              disabled={create.isPending}
              helperText="The receiver's https address; events are POSTed to it as JSON"
            />
            {sysAdmin && (
              <TextField select label="Events of" value={company} onChange={(e) => setCompany(e.target.value)} fullWidth margin="dense" disabled={create.isPending}>
                <MenuItem value={EVERY_COMPANY}>Every company</MenuItem>
                {companies.map((c) => (
                  <MenuItem key={c.id} value={String(c.id)}>
                    {c.companyname}
                  </MenuItem>
                ))}
              </TextField>
            )}
            <Typography variant="subtitle2" component="p" sx={{ mt: 2 }}>
              Send these events
            </Typography>
            <EventChoices label="Send these events" value={events} onChange={setEvents} disabled={create.isPending} />
            {error && (
              <Alert severity="error" sx={{ mt: 2 }}>
                {error}
              </Alert>
            )}
            {create.isPending && <BusyStatus title="Creating webhook..." layout="inline" />}
          </Box>
        )}
        {created && (
          <>
            <ShownOnceSecret
              warning="This signing secret is shown only once. Copy it now into the receiver’s settings: it verifies each message with it (Standard Webhooks)."
              label="Signing secret"
              value={created.secret}
              copyLabel="Copy Secret"
              noun="the secret"
            />
            <DialogContentText variant="body2" sx={{ overflowWrap: 'anywhere' }}>{`Address: ${created.url}`}</DialogContentText>
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
              Create
            </Button>
          </>
        )}
      </DialogActions>
    </Dialog>
  );
}
