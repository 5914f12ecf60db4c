import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Skeleton from '@mui/material/Skeleton';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import useMediaQuery from '@mui/material/useMediaQuery';
import type { Theme } from '@mui/material/styles';
import type { TWebhook, TWebhookDelivery } from '@portal/contract';
import { useId } from 'react';
import { PhoneCard, PhoneCardList } from '../../../components/PhoneCardList';
import { TablePager } from '../../../components/TablePager';
import { usePagination } from '../../../components/use-pagination';
import { formatDateTime } from '../../../lib/format';
import { formatUserError } from '../../../lib/error-mapping';
import { useWebhookDeliveries } from '../api/webhooks';
import { eventLabel } from '../event-words';

const STATUS: Record<TWebhookDelivery['status'], { label: string; color: 'default' | 'info' | 'success' | 'warning' | 'error' }> = {
  pending: { label: 'Waiting', color: 'info' },
  retrying: { label: 'Retrying', color: 'warning' },
  delivered: { label: 'Delivered', color: 'success' },
  failed: { label: 'Failed', color: 'error' },
};

const outcome = (d: TWebhookDelivery) =>
  d.last_error ?? (d.status === 'delivered' ? `Answered ${d.last_status_code ?? ''} ${formatDateTime(d.delivered_at)}`.replace('  ', ' ') : 'Not tried yet');

/** An endpoint's log: each message's event, status, attempts and last error, newest first. */
export function WebhookDeliveriesDialog({ webhook, onClose }: { webhook: TWebhook; onClose: () => void }) {
  const titleId = useId();
  const phone = useMediaQuery((theme: Theme) => theme.breakpoints.down('sm'), { noSsr: true });
  const pagination = usePagination();
  const log = useWebhookDeliveries(webhook.id, pagination.page, pagination.rowsPerPage);
  const rows = log.data?.data ?? [];
  const status = (d: TWebhookDelivery) => <Chip size="small" label={STATUS[d.status].label} color={STATUS[d.status].color} variant="outlined" />;

  return (
    <Dialog open onClose={onClose} aria-labelledby={titleId} maxWidth="md" fullWidth fullScreen={phone}>
      <DialogTitle id={titleId}>Deliveries log</DialogTitle>
      <DialogContent>
        <Typography variant="body2" color="text.secondary" sx={{ mb: 1, overflowWrap: 'anywhere' }}>
          {webhook.url}
        </Typography>
        {log.error && <Alert severity="error">{formatUserError(log.error)}</Alert>}
        {log.isPending && !log.error && (
          <Box role="progressbar" aria-label="Loading the deliveries log">
            {[0, 1, 2].map((row) => (
              <Skeleton key={row} height={40} />
            ))}
          </Box>
        )}
        {log.data && rows.length === 0 && (
          <Typography color="text.secondary" sx={{ py: 3, textAlign: 'center' }}>
            Nothing sent yet. Messages appear here as their events happen.
          </Typography>
        )}
        {rows.length > 0 &&
          (phone ? (
            <PhoneCardList label="Deliveries">
              {rows.map((d) => (
                <PhoneCard key={d.id} label={`${eventLabel(d.event)} ${formatDateTime(d.created_at)}`} actions={status(d)}>
                  <Typography sx={{ fontWeight: 600 }}>{eventLabel(d.event)}</Typography>
                  <Typography variant="body2" color="text.secondary">{`${formatDateTime(d.created_at)} · ${d.attempts} ${d.attempts === 1 ? 'attempt' : 'attempts'}`}</Typography>
                  <Typography variant="body2" sx={{ overflowWrap: 'anywhere' }}>
                    {outcome(d)}
                  </Typography>
                </PhoneCard>
              ))}
            </PhoneCardList>
          ) : (
            <Table size="small" aria-label="Deliveries">
              <TableHead>
                <TableRow>
                  <TableCell>Event</TableCell>
                  <TableCell>Created</TableCell>
                  <TableCell>Status</TableCell>
                  <TableCell align="right">Attempts</TableCell>
                  <TableCell>Last answer or error</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {rows.map((d) => (
                  <TableRow key={d.id}>
                    <TableCell sx={{ whiteSpace: 'nowrap' }}>{eventLabel(d.event)}</TableCell>
                    <TableCell sx={{ whiteSpace: 'nowrap' }}>{formatDateTime(d.created_at)}</TableCell>
                    <TableCell>{status(d)}</TableCell>
                    <TableCell align="right">{d.attempts}</TableCell>
                    <TableCell sx={{ overflowWrap: 'anywhere' }}>{outcome(d)}</TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          ))}
        {log.data && log.data.page.total > 0 && <TablePager count={log.data.page.total} pagination={pagination} />}
      </DialogContent>
      <DialogActions sx={{ px: 3, pb: 2 }}>
        <Button variant="contained" onClick={onClose}>
          Close
        </Button>
      </DialogActions>
    </Dialog>
  );
}
