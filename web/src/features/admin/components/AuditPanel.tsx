import type { TAuditEntry } from '@portal/contract';
import Download from '@mui/icons-material/Download';
import FilterAltOff from '@mui/icons-material/FilterAltOff';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
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
import { useEffect, useState } from 'react';
import { PhoneCard, PhoneCardList } from '../../../components/PhoneCardList';
import { usePagination } from '../../../components/use-pagination';
import { useNotify } from '../../../components/use-notify';
import { formatDateTime } from '../../../lib/format';
import { useDebouncedValue } from '../../../lib/use-debounced-value';
import { adminErrorText } from '../admin-errors';
import { isSysAdmin, useAdminViewer } from '../admin-viewer';
import { downloadAuditCsv } from '../api/download-audit-csv';
import { useCompanyNames } from '../api/get-companies';
import { NO_AUDIT_FILTERS, useAudit, type AuditFilters } from '../api/get-audit';
import { actionLabel, detailsText } from '../audit-actions';
import { SEARCH_DEBOUNCE_MS } from '../../../components/use-searched-pages';
import { AuditFilterFields } from './AuditFilterFields';
import { count, ListPanel } from './ListPanel';

const actorText = (row: TAuditEntry) => row.actor_name ?? (row.actor_id === null ? 'nobody signed in' : `user ${row.actor_id}`);
const objectText = (row: TAuditEntry) => (row.object_type ? (row.object_id ? `${row.object_type}/${row.object_id}` : row.object_type) : '');

/** The audit trail (SysAdmin: every company's; CompanyAdmin: their own), filtered, paged, and as CSV. */
export function AuditPanel() {
  const viewer = useAdminViewer();
  const sysAdmin = isSysAdmin(viewer);
  const pagination = usePagination();
  const [typed, setTyped] = useState<AuditFilters>(NO_AUDIT_FILTERS);
  // Typing in a filter asks the server once it pauses, as the search boxes do.
  const filters = useDebouncedValue(typed, SEARCH_DEBOUNCE_MS);
  const { setPage } = pagination;
  useEffect(() => setPage(0), [filters, setPage]);
  const list = useAudit(filters, pagination.page + 1, pagination.rowsPerPage);
  const companies = useCompanyNames(sysAdmin);
  const phone = useMediaQuery((theme: Theme) => theme.breakpoints.down('sm'), { noSsr: true });
  const notify = useNotify();
  const [downloading, setDownloading] = useState(false);
  const rows = list.data?.data ?? [];
  const companyName = (id: number | null) => (id === null ? 'the portal' : (companies.data?.nameOf.get(id) ?? `Company ${id}`));
  const filtered = Object.values(typed).some(Boolean);

  const download = async () => {
    setDownloading(true);
    try {
      await downloadAuditCsv(filters);
      notify.success('File downloaded successfully');
    } catch (failure) {
      notify.error(adminErrorText(failure));
    } finally {
      setDownloading(false);
    }
  };

  return (
    <ListPanel
      title="Audit trail"
      countText={(n) => count(n, 'row', 'rows')}
      list={list}
      pagination={pagination}
      emptyText={filtered ? 'No row matches these filters.' : 'Nothing has been recorded yet.'}
      tools={
        <>
          <Button startIcon={<FilterAltOff />} onClick={() => setTyped(NO_AUDIT_FILTERS)} disabled={!filtered}>
            Clear Filters
          </Button>
          <Button
            variant="contained"
            startIcon={downloading ? <CircularProgress size={18} color="inherit" aria-hidden="true" /> : <Download />}
            onClick={() => void download()}
            disabled={downloading}
          >
            {downloading ? 'Downloading...' : 'Download CSV'}
          </Button>
          <AuditFilterFields filters={typed} onChange={setTyped} />
        </>
      }
    >
      {phone ? (
        <PhoneCardList label="Audit trail">
          {rows.map((row) => (
            <PhoneCard key={row.seq} label={`${actionLabel(row.action)}, ${formatDateTime(row.at)}`} actions={null}>
              <Typography sx={{ fontWeight: 600 }}>{actionLabel(row.action)}</Typography>
              <Typography variant="body2" color="text.secondary">
                {formatDateTime(row.at)}
              </Typography>
              <Typography variant="body2" sx={{ overflowWrap: 'anywhere' }}>
                {`By ${actorText(row)}${sysAdmin ? ` · ${companyName(row.company_id)}` : ''}${row.ip ? ` · from ${row.ip}` : ''}`}
              </Typography>
              {objectText(row) && <Typography variant="body2" sx={{ overflowWrap: 'anywhere' }}>{`Object: ${objectText(row)}`}</Typography>}
              {row.details && (
                <Typography variant="body2" color="text.secondary" sx={{ overflowWrap: 'anywhere' }}>
                  {detailsText(row.details)}
                </Typography>
              )}
            </PhoneCard>
          ))}
        </PhoneCardList>
      ) : (
        <TableContainer>
          <Table aria-label="Audit trail" size="small">
            <TableHead>
              <TableRow>
                <TableCell>Time</TableCell>
                <TableCell>Action</TableCell>
                <TableCell>Actor</TableCell>
                {sysAdmin && <TableCell>Company</TableCell>}
                <TableCell>Object</TableCell>
                <TableCell>Client</TableCell>
                <TableCell>Details</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {rows.map((row) => (
                <TableRow key={row.seq} hover>
                  <TableCell sx={{ whiteSpace: 'nowrap' }}>{formatDateTime(row.at)}</TableCell>
                  <TableCell>
                    <Box>{actionLabel(row.action)}</Box>
                    <Typography variant="caption" color="text.secondary" sx={{ fontFamily: 'monospace' }}>
                      {row.action}
                    </Typography>
                  </TableCell>
                  <TableCell sx={{ overflowWrap: 'anywhere' }}>{actorText(row)}</TableCell>
                  {sysAdmin && <TableCell sx={{ overflowWrap: 'anywhere' }}>{companyName(row.company_id)}</TableCell>}
                  <TableCell sx={{ whiteSpace: 'nowrap' }}>{objectText(row)}</TableCell>
                  <TableCell>
                    {row.user_agent ? (
                      <Tooltip title={row.user_agent} describeChild>
                        <span>{row.ip ?? 'unknown'}</span>
                      </Tooltip>
                    ) : (
                      (row.ip ?? '')
                    )}
                  </TableCell>
                  <TableCell sx={{ overflowWrap: 'anywhere', maxWidth: 320 }}>{detailsText(row.details)}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </TableContainer>
      )}
    </ListPanel>
  );
}
