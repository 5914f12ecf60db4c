import Add from '@mui/icons-material/Add';
import DeleteOutline from '@mui/icons-material/DeleteOutlined';
import History from '@mui/icons-material/History';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import IconButton from '@mui/material/IconButton';
import LinearProgress from '@mui/material/LinearProgress';
import Paper from '@mui/material/Paper';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import useMediaQuery from '@mui/material/useMediaQuery';
import type { Theme } from '@mui/material/styles';
import type { TWebhook } from '@portal/contract';
import { useState } from 'react';
import { LoadStates } from '../../../components/LoadStates';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { PhoneCard, PhoneCardList } from '../../../components/PhoneCardList';
import { useNotify } from '../../../components/use-notify';
import { formatDateTime } from '../../../lib/format';
import { formatUserError } from '../../../lib/error-mapping';
import { useDeleteWebhook, useWebhooks } from '../api/webhooks';
import { eventLabel } from '../event-words';
import { CreateWebhookDialog, type CompanyChoice } from './CreateWebhookDialog';
import { WebhookDeliveriesDialog } from './WebhookDeliveriesDialog';

interface WebhooksPanelProps {
  /** A SysAdmin's view: every company's endpoints and the portal-wide ones, and the companies to choose from. */
  sysAdmin: boolean;
  companies: readonly CompanyChoice[];
  /** Names a row's company (a SysAdmin's view). */
  companyName: (id: number) => string;
}

/** Webhook endpoints in the administration: list, create (the secret shown once), delete, and each one's log. */
export function WebhooksPanel({ sysAdmin, companies, companyName }: WebhooksPanelProps) {
  const list = useWebhooks();
  const remove = useDeleteWebhook();
  const notify = useNotify();
  const phone = useMediaQuery((theme: Theme) => theme.breakpoints.down('sm'), { noSsr: true });
  const [creating, setCreating] = useState(false);
  const [logOf, setLogOf] = useState<TWebhook | null>(null);
  const [deleting, setDeleting] = useState<TWebhook | null>(null);
  const hooks = list.data?.data ?? [];
  const heard = (hook: TWebhook) => (hook.company_id === null ? 'Every company' : companyName(hook.company_id));
  const events = (hook: TWebhook) => hook.events.map(eventLabel).join(', ');

  const confirmDelete = async () => {
    if (!deleting) return;
    try {
      await remove.mutateAsync(deleting.id);
      notify.success('Webhook deleted');
    } catch (failure) {
      notify.error(formatUserError(failure));
    }
    setDeleting(null);
  };
  const actions = (hook: TWebhook) => (
    <>
      <Tooltip title="Deliveries log">
        <IconButton aria-label={`Deliveries log of ${hook.url}`} onClick={() => setLogOf(hook)}>
          <History />
        </IconButton>
      </Tooltip>
      <Tooltip title="Delete">
        <IconButton aria-label={`Delete webhook ${hook.url}`} onClick={() => setDeleting(hook)}>
          <DeleteOutline />
        </IconButton>
      </Tooltip>
    </>
  );

  return (
    <>
      <Paper variant="outlined">
        <Box sx={{ display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: 1, p: 2 }}>
          <Typography variant="h6" component="h2">
            Webhooks
          </Typography>
          <Typography variant="body2" color="text.secondary" sx={{ flexGrow: 1 }}>
            {list.data ? `(${hooks.length} ${hooks.length === 1 ? 'endpoint' : 'endpoints'})` : ''}
          </Typography>
          <Button variant="contained" startIcon={<Add />} onClick={() => setCreating(true)}>
            Add Webhook
          </Button>
        </Box>
        <Typography variant="body2" color="text.secondary" sx={{ px: 2, pb: 1 }}>
          {sysAdmin
            ? 'Each endpoint receives the events it lists, signed the Standard Webhooks way: of one company, or of every company.'
            : 'Each endpoint receives the events of your company’s projects it lists, signed the Standard Webhooks way.'}
        </Typography>
        <Box sx={{ height: 4 }}>{list.isFetching && list.data && <LinearProgress aria-label="Loading webhooks" />}</Box>
        <LoadStates error={list.error} errorText={formatUserError} onRetry={() => void list.refetch()} pending={list.isPending} loadingLabel="Loading webhooks" />
        {list.data && hooks.length === 0 && (
          <Typography color="text.secondary" sx={{ p: 3, textAlign: 'center' }}>
            No webhooks yet. Add one to tell a system of yours when uploads and deliveries arrive, are processed, accepted or rejected.
          </Typography>
        )}
        {hooks.length > 0 &&
          (phone ? (
            <PhoneCardList label="Webhooks">
              {hooks.map((hook) => (
                <PhoneCard key={hook.id} label={hook.url} actions={actions(hook)}>
                  <Typography sx={{ fontWeight: 600, overflowWrap: 'anywhere' }}>{hook.url}</Typography>
                  {sysAdmin && <Typography variant="body2" color="text.secondary">{heard(hook)}</Typography>}
                  <Typography variant="body2">{events(hook)}</Typography>
                  <Typography variant="body2" color="text.secondary">{`Created ${formatDateTime(hook.created_at)}`}</Typography>
                </PhoneCard>
              ))}
            </PhoneCardList>
          ) : (
            <TableContainer>
              <Table aria-label="Webhooks">
                <TableHead>
                  <TableRow>
                    <TableCell>Address</TableCell>
                    {sysAdmin && <TableCell>Company</TableCell>}
                    <TableCell>Events</TableCell>
                    <TableCell>Created</TableCell>
                    <TableCell align="right">Actions</TableCell>
                  </TableRow>
                </TableHead>
                <TableBody>
                  {hooks.map((hook) => (
                    <TableRow key={hook.id} hover>
                      <TableCell sx={{ fontWeight: 600, overflowWrap: 'anywhere', maxWidth: 320 }}>{hook.url}</TableCell>
                      {sysAdmin && <TableCell>{heard(hook)}</TableCell>}
                      <TableCell sx={{ maxWidth: 280 }}>{events(hook)}</TableCell>
                      <TableCell sx={{ whiteSpace: 'nowrap' }}>{formatDateTime(hook.created_at)}</TableCell>
                      <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                        {actions(hook)}
                      </TableCell>
                    </TableRow>
                  ))}
                </TableBody>
              </Table>
            </TableContainer>
          ))}
      </Paper>
      {creating && <CreateWebhookDialog sysAdmin={sysAdmin} companies={companies} onClose={() => setCreating(false)} />}
      {logOf && <WebhookDeliveriesDialog webhook={logOf} onClose={() => setLogOf(null)} />}
      <ConfirmDialog
        open={deleting !== null}
        title="Delete webhook?"
        message="The endpoint stops receiving events at once, and its deliveries log is deleted with it. Messages still waiting for a retry are dropped."
        detail={deleting?.url}
        confirmLabel="Delete"
        busyLabel="Deleting..."
        busy={remove.isPending}
        onConfirm={() => void confirmDelete()}
        onClose={() => setDeleting(null)}
      />
    </>
  );
}
