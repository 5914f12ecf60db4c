import ContentCopy from '@mui/icons-material/ContentCopy';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import FormControlLabel from '@mui/material/FormControlLabel';
import IconButton from '@mui/material/IconButton';
import InputAdornment from '@mui/material/InputAdornment';
import Switch from '@mui/material/Switch';
import TextField from '@mui/material/TextField';
import Tooltip from '@mui/material/Tooltip';
import useMediaQuery from '@mui/material/useMediaQuery';
import type { Theme } from '@mui/material/styles';
import type { TSsoSettings } from '@portal/contract';
import { isAxiosError } from 'axios';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useNotify } from '../../../components/use-notify';
import { fetchSsoSettings, saveSsoSettings } from '../api/sso-api';

interface Form {
  enabled: boolean;
  issuer: string;
  client_id: string;
  client_secret: string;
  password_login_allowed: boolean;
  auto_create_users: boolean;
}

const formOf = (s: TSsoSettings): Form => ({
  enabled: s.enabled,
  issuer: s.issuer ?? '',
  client_id: s.client_id ?? '',
  client_secret: '',
  password_login_allowed: s.password_login_allowed,
  auto_create_users: s.auto_create_users,
});

/** The server's sentence for a refused change; else a plain one. */
function refusal(error: unknown): string {
  if (isAxiosError<{ message?: string }>(error) && error.response?.data?.message && [400, 422].includes(error.response.status)) {
    return error.response.data.message;
  }
  return 'The settings could not be saved. Please try again.';
}

function CopyField({ label, value }: { label: string; value: string }) {
  const notify = useNotify();
  const copy = () =>
    void navigator.clipboard.writeText(value).then(
      () => notify.success(`${label} copied`),
      () => notify.error('Could not copy: select the text and copy it by hand'),
    );
  return (
    <TextField
      label={label}
      value={value}
      fullWidth
      margin="dense"
      size="small"
      slotProps={{
        input: {
          readOnly: true,
          endAdornment: (
            <InputAdornment position="end">
              <Tooltip title={`Copy ${label.toLowerCase()}`}>
                <IconButton aria-label={`Copy ${label.toLowerCase()}`} onClick={copy} edge="end" size="small">
                  <ContentCopy fontSize="small" />
                </IconButton>
              </Tooltip>
            </InputAdornment>
          ),
        },
      }}
    />
  );
}

/** A company's single sign-on settings, for a SysAdmin. The client secret can be replaced, never read. */
export function CompanySsoDialog({ companyId, companyName, open, onClose }: { companyId: number; companyName?: string; open: boolean; onClose: () => void }) {
  const notify = useNotify();
  const phone = useMediaQuery((theme: Theme) => theme.breakpoints.down('sm'));
  const [settings, setSettings] = useState<TSsoSettings | null>(null);
  const [form, setForm] = useState<Form | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [saveError, setSaveError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const errorRef = useRef<HTMLDivElement>(null);

  // On a phone the reason is below the fold: brought into view, or the Save press seems to do nothing.
  useEffect(() => {
    if (saveError) errorRef.current?.scrollIntoView?.({ block: 'nearest', behavior: 'smooth' });
  }, [saveError]);

  useEffect(() => {
    if (!open) return;
    let live = true;
    // The button mounts the dialog afresh each time it opens, so there is no earlier state to clear.
    fetchSsoSettings(companyId).then(
      (loaded) => {
        if (!live) return;
        setSettings(loaded);
        setForm(formOf(loaded));
      },
      () => live && setLoadError('The single sign-on settings could not be loaded. Please try again.'),
    );
    return () => {
      live = false;
    };
  }, [open, companyId]);

  const set = <K extends keyof Form>(key: K, value: Form[K]) => setForm((current) => (current ? { ...current, [key]: value } : current));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!form) return;
    setSaving(true);
    setSaveError(null);
    try {
      const { client_secret, ...rest } = form;
      await saveSsoSettings(companyId, { ...rest, ...(client_secret ? { client_secret } : {}) });
      notify.success('Single sign-on settings saved');
      onClose();
    } catch (error) {
      setSaveError(refusal(error));
    } finally {
      setSaving(false);
    }
  };

  return (
    <Dialog open={open} onClose={saving ? undefined : onClose} aria-labelledby="company-sso-title" maxWidth="sm" fullWidth fullScreen={phone}>
      <Box component="form" onSubmit={(e) => void submit(e)} noValidate sx={{ display: 'flex', flexDirection: 'column', minHeight: 0, flex: 1 }}>
        <DialogTitle id="company-sso-title">{companyName ? `Single sign-on for ${companyName}` : 'Single sign-on'}</DialogTitle>
        <DialogContent dividers>
          {loadError && <Alert severity="error">{loadError}</Alert>}
          {!form && !loadError && (
            <Box sx={{ display: 'flex', justifyContent: 'center', py: 4 }}>
              <CircularProgress aria-label="Loading the settings" />
            </Box>
          )}
          {form && settings && (
            <>
              <FormControlLabel
                control={<Switch checked={form.enabled} onChange={(e) => set('enabled', e.target.checked)} />}
                label="Users sign in with their company's identity provider (OpenID Connect)"
              />
              <TextField
                label="Issuer"
                placeholder="https://login.example.org/realms/hospital"
                value={form.issuer}
                onChange={(e) => set('issuer', e.target.value)}
                required={form.enabled}
                fullWidth
                margin="normal"
              />
              <TextField
                label="Client ID"
                value={form.client_id}
                onChange={(e) => set('client_id', e.target.value)}
                required={form.enabled}
                fullWidth
                margin="normal"
              />
              <TextField
                label="Client secret"
                type="password"
                autoComplete="new-password"
                value={form.client_secret}
                onChange={(e) => set('client_secret', e.target.value)}
                helperText={settings.has_secret ? 'A secret is stored. Leave this empty to keep it, or enter a new one to replace it.' : 'No secret is stored yet.'}
                fullWidth
                margin="normal"
              />
              <FormControlLabel
                control={<Switch checked={form.password_login_allowed} onChange={(e) => set('password_login_allowed', e.target.checked)} />}
                label="Users may still sign in with a password"
              />
              <FormControlLabel
                control={<Switch checked={form.auto_create_users} onChange={(e) => set('auto_create_users', e.target.checked)} />}
                label="Create users on their first sign-in (role User)"
              />
              <Box sx={{ mt: 2 }}>
                <CopyField label="Redirect URI" value={settings.redirect_uri} />
                <CopyField label="Login link" value={settings.login_url} />
              </Box>
              {saveError && (
                <Alert ref={errorRef} severity="error" sx={{ mt: 2 }}>
                  {saveError}
                </Alert>
              )}
            </>
          )}
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose} disabled={saving}>
            Cancel
          </Button>
          <Button
            type="submit"
            variant="contained"
            disabled={!form || saving}
            startIcon={saving ? <CircularProgress size={18} color="inherit" aria-hidden="true" /> : undefined}
          >
            {saving ? 'Saving...' : 'Save'}
          </Button>
        </DialogActions>
      </Box>
    </Dialog>
  );
}
