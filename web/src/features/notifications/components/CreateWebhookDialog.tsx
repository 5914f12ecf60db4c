import DialogContentText from '@mui/material/DialogContentText';
import MenuItem from '@mui/material/MenuItem';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import type { TCreatedWebhook, TNotificationEvent } from '@portal/contract';
import { useState } from 'react';
import { SecretCreationDialog } from '../../../components/SecretCreationDialog';
import { ShownOnceSecret } from '../../../components/ShownOnceSecret';
import { refusalWithReason } from '../../../lib/error-mapping';
import { useCreateWebhook } from '../api/webhooks';
import { EventChoices } from './EventChoices';

export interface CompanyChoice {
  id: number;
  companyname: string;
}

const EVERY_COMPANY = 'all';

/**
 * A new endpoint: its address, its events and (a SysAdmin's) the company it hears. The signing
 * secret the server answers is shown once, here: it is kept sealed and never shown again.
 */
export function CreateWebhookDialog({ sysAdmin, companies, onClose }: { sysAdmin: boolean; companies: readonly CompanyChoice[]; onClose: () => void }) {
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
      setError(refusalWithReason(failure, [400, 403, 404, 422]));
    }
  };

  return (
    <SecretCreationDialog
      title="Add Webhook"
      createdTitle="Webhook created"
      submitLabel="Create"
      busyTitle="Creating webhook..."
      pending={create.isPending}
      error={error}
      onSubmit={() => void submit()}
      onClose={onClose}
      created={
        created && (
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
        )
      }
    >
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
    </SecretCreationDialog>
  );
}
