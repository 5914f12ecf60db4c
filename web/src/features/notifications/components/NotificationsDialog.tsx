import Alert from '@mui/material/Alert';
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
import Skeleton from '@mui/material/Skeleton';
import Switch from '@mui/material/Switch';
import useMediaQuery from '@mui/material/useMediaQuery';
import type { Theme } from '@mui/material/styles';
import { ROLES, type TNotificationEvent, type TNotificationMode, type TNotificationPreferences } from '@portal/contract';
import { useId, useState } from 'react';
import { BusyStatus } from '../../../components/BusyOverlay';
import { useNotify } from '../../../components/use-notify';
import { formatUserError } from '../../../lib/error-mapping';
import { useNotificationSettings, useSaveNotificationSettings } from '../api/notification-settings';
import { EventChoices } from './EventChoices';

interface NotificationsDialogProps {
  open: boolean;
  role: number;
  onClose: () => void;
}

/** 'Notifications' in the avatar menu: which events of their projects a user is e-mailed about, and how often. */
export default function NotificationsDialog({ open, role, onClose }: NotificationsDialogProps) {
  const titleId = useId();
  const phone = useMediaQuery((theme: Theme) => theme.breakpoints.down('sm'), { noSsr: true });
  const settings = useNotificationSettings(open);
  return (
    <Dialog open={open} onClose={onClose} aria-labelledby={titleId} maxWidth="sm" fullWidth fullScreen={phone}>
      <DialogTitle id={titleId}>Notifications</DialogTitle>
      {settings.data ? (
        <SettingsForm key={settings.dataUpdatedAt} saved={settings.data} role={role} onClose={onClose} />
      ) : (
        <>
          <DialogContent>
            {settings.error ? (
              <Alert
                severity="error"
                action={
                  <Button color="inherit" size="small" onClick={() => void settings.refetch()}>
                    Retry
                  </Button>
                }
              >
                {formatUserError(settings.error)}
              </Alert>
            ) : (
              <Box role="progressbar" aria-label="Loading your notification settings">
                {[0, 1, 2, 3].map((row) => (
                  <Skeleton key={row} height={44} />
                ))}
              </Box>
            )}
          </DialogContent>
          <DialogActions sx={{ px: 3, pb: 2 }}>
            <Button onClick={onClose}>Cancel</Button>
          </DialogActions>
        </>
      )}
    </Dialog>
  );
}

function SettingsForm({ saved, role, onClose }: { saved: TNotificationPreferences; role: number; onClose: () => void }) {
  const save = useSaveNotificationSettings();
  const notify = useNotify();
  const [events, setEvents] = useState<TNotificationEvent[]>(saved.events);
  const [mode, setMode] = useState<TNotificationMode>(saved.mode);
  const [allProjects, setAllProjects] = useState(saved.all_projects);
  const [error, setError] = useState<string | null>(null);
  const receiving = role === ROLES.SysUser || role === ROLES.SysAdmin;
  const modeLabel = useId();

  const submit = async () => {
    setError(null);
    try {
      await save.mutateAsync({ events, mode, all_projects: receiving && allProjects });
      notify.success('Notification settings saved');
      onClose();
    } catch (failure) {
      setError(formatUserError(failure));
    }
  };

  return (
    <>
      <DialogContent>
        {!saved.mail_configured && (
          <Alert severity="info" sx={{ mb: 2 }}>
            This portal sends no e-mail yet: your administrator has not set up an e-mail server. Your choices are kept for when they do.
          </Alert>
        )}
        {saved.mail_configured && !saved.email && (
          <Alert severity="warning" sx={{ mb: 2 }}>
            Your account has no e-mail address, so nothing can be sent. Ask your administrator to add one.
          </Alert>
        )}
        <DialogContentText sx={{ mb: 1 }}>
          {saved.email ? `E-mail me at ${saved.email} when an upload or a delivery of my projects is:` : 'E-mail me when an upload or a delivery of my projects is:'}
        </DialogContentText>
        <EventChoices label="E-mail me about" value={events} onChange={setEvents} disabled={save.isPending} />
        <FormControl sx={{ mt: 2 }} disabled={save.isPending}>
          <FormLabel id={modeLabel}>How often</FormLabel>
          <RadioGroup aria-labelledby={modeLabel} value={mode} onChange={(e) => setMode(e.target.value as TNotificationMode)}>
            <FormControlLabel value="immediate" control={<Radio />} label="At once: one e-mail per event" />
            <FormControlLabel value="daily" control={<Radio />} label="Daily digest: one e-mail a day" />
          </RadioGroup>
        </FormControl>
        {receiving && (
          <FormControlLabel
            sx={{ display: 'flex', mt: 1 }}
            control={<Switch checked={allProjects} onChange={(e) => setAllProjects(e.target.checked)} disabled={save.isPending} />}
            label="Every company's projects, not only my company's (for example every new delivery)"
          />
        )}
        {error && (
          <Alert severity="error" sx={{ mt: 2 }}>
            {error}
          </Alert>
        )}
        {save.isPending && <BusyStatus title="Saving..." layout="inline" />}
      </DialogContent>
      <DialogActions sx={{ px: 3, pb: 2 }}>
        <Button onClick={onClose} disabled={save.isPending}>
          Cancel
        </Button>
        <Button variant="contained" onClick={() => void submit()} disabled={save.isPending}>
          Save
        </Button>
      </DialogActions>
    </>
  );
}
