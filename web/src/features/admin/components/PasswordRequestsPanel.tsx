import LockReset from '@mui/icons-material/LockReset';
import Button from '@mui/material/Button';
import MenuItem from '@mui/material/MenuItem';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import useMediaQuery from '@mui/material/useMediaQuery';
import type { Theme } from '@mui/material/styles';
import { useState } from 'react';
import { PhoneCard, PhoneCardList } from '../../../components/PhoneCardList';
import { SearchField } from '../../../components/SearchField';
import { formatDateTime } from '../../../lib/format';
import { isSysAdmin, useAdminViewer } from '../admin-viewer';
import { useCompanyNames } from '../api/get-companies';
import { usePasswordRequests, type PasswordRequest, type RequestStatus } from '../api/get-password-requests';
import { useSearchedPages } from '../../../components/use-searched-pages';
import { count, ListPanel } from './ListPanel';
import { ResetLinkDialog, type LinkTarget } from './ResetLinkDialog';

const STATUS_CHOICES: ReadonlyArray<{ value: RequestStatus; label: string }> = [
  { value: 'open', label: 'Waiting' },
  { value: 'resolved', label: 'Answered' },
  { value: 'all', label: 'All' },
];

const state = (request: PasswordRequest) => (request.resolved_at ? `Answered ${formatDateTime(request.resolved_at)}` : 'Waiting');

/**
 * 'Forgot your password?' requests (the user's CompanyAdmins, and SysAdmins, see them): the answer
 * is a reset link, which also marks the user's requests answered.
 */
export function PasswordRequestsPanel() {
  const viewer = useAdminViewer();
  const sysAdmin = isSysAdmin(viewer);
  const controls = useSearchedPages();
  const [status, setStatus] = useState<RequestStatus>('open');
  const list = usePasswordRequests({ ...controls.query, status });
  const companies = useCompanyNames(sysAdmin);
  const phone = useMediaQuery((theme: Theme) => theme.breakpoints.down('sm'), { noSsr: true });
  const [linkFor, setLinkFor] = useState<LinkTarget | null>(null);
  const requests = list.data?.data ?? [];
  const companyName = (id: number) => companies.data?.nameOf.get(id) ?? `Company ${id}`;
  const name = (r: PasswordRequest) => `${r.firstname} ${r.lastname}`.trim();
  const target = (r: PasswordRequest): LinkTarget => ({ id: r.user_id, username: r.username, firstname: r.firstname, lastname: r.lastname });
  const resetButton = (r: PasswordRequest) => (
    <Button size="small" startIcon={<LockReset />} onClick={() => setLinkFor(target(r))} aria-label={`Reset Password for ${r.username}`}>
      Reset Password
    </Button>
  );

  return (
    <>
      <ListPanel
        title="Password requests"
        countText={(n) => count(n, 'request', 'requests')}
        list={list}
        pagination={controls.pagination}
        emptyText={
          controls.q
            ? `No request from a user matching "${controls.q}".`
            : status === 'open'
              ? "Nobody is waiting for a password link. Requests made with 'Forgot your password?' appear here."
              : 'No requests.'
        }
        tools={
          <>
            <SearchField label="Search requests" placeholder="Name or username" value={controls.search} onChange={controls.setSearch} sx={{ width: { xs: '100%', sm: 240 } }} />
            <TextField
              select
              size="small"
              label="Show"
              value={status}
              onChange={(e) => {
                setStatus(e.target.value as RequestStatus);
                controls.pagination.setPage(0);
              }}
              sx={{ width: { xs: '100%', sm: 160 } }}
            >
              {STATUS_CHOICES.map((choice) => (
                <MenuItem key={choice.value} value={choice.value}>
                  {choice.label}
                </MenuItem>
              ))}
            </TextField>
          </>
        }
      >
        {phone ? (
          <PhoneCardList label="Password requests">
            {requests.map((r) => (
              <PhoneCard key={r.id} label={r.username} actions={null}>
                <Typography sx={{ fontWeight: 600, overflowWrap: 'anywhere' }}>{name(r)}</Typography>
                <Typography variant="body2" color="text.secondary" sx={{ overflowWrap: 'anywhere' }}>
                  {sysAdmin ? `${r.username} · ${companyName(r.company_id)}` : r.username}
                </Typography>
                <Typography variant="body2">{`Asked ${formatDateTime(r.created_at)}`}</Typography>
                <Typography variant="body2" color="text.secondary">
                  {state(r)}
                </Typography>
                {resetButton(r)}
              </PhoneCard>
            ))}
          </PhoneCardList>
        ) : (
          <TableContainer>
            <Table aria-label="Password requests">
              <TableHead>
                <TableRow>
                  <TableCell>Name</TableCell>
                  <TableCell>Username</TableCell>
                  {sysAdmin && <TableCell>Company</TableCell>}
                  <TableCell>Asked</TableCell>
                  <TableCell>Status</TableCell>
                  <TableCell align="right">Actions</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {requests.map((r) => (
                  <TableRow key={r.id} hover>
                    <TableCell sx={{ fontWeight: 600, overflowWrap: 'anywhere' }}>{name(r)}</TableCell>
                    <TableCell sx={{ overflowWrap: 'anywhere' }}>{r.username}</TableCell>
                    {sysAdmin && <TableCell sx={{ overflowWrap: 'anywhere' }}>{companyName(r.company_id)}</TableCell>}
                    <TableCell sx={{ whiteSpace: 'nowrap' }}>{formatDateTime(r.created_at)}</TableCell>
                    <TableCell>{state(r)}</TableCell>
                    <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                      {resetButton(r)}
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </TableContainer>
        )}
      </ListPanel>
      {linkFor && <ResetLinkDialog user={linkFor} reason="reset" onClose={() => setLinkFor(null)} />}
    </>
  );
}
