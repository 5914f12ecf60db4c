import type { TAdminUser } from '@portal/contract';
import PersonAdd from '@mui/icons-material/PersonAdd';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
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
import { useSearchParams } from 'react-router';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { PhoneCard, PhoneCardList } from '../../../components/PhoneCardList';
import { SearchField } from '../../../components/SearchField';
import { useNotify } from '../../../components/use-notify';
import { roleName } from '../../../lib/role-names';
import { adminErrorText } from '../admin-errors';
import { isSysAdmin, useAdminViewer } from '../admin-viewer';
import { useCompanyNames } from '../api/get-companies';
import { useUsers } from '../api/get-users';
import { useUpdateUser } from '../api/save-user';
import { useSearchedPages } from '../../../components/use-searched-pages';
import { count, ListPanel } from './ListPanel';
import { ResetLinkDialog } from './ResetLinkDialog';
import { UserActions, type UserActionHandlers } from './UserActions';
import { CompanyTwoFactorSwitch } from './CompanyTwoFactorSwitch';
import { serverWords, useResetTwoFactor } from '../../two-factor';
import { UserFormDialog } from './UserFormDialog';

const fullName = (user: TAdminUser) => `${user.firstname} ${user.lastname}`.trim();

function StatusChip({ user }: { user: TAdminUser }) {
  return user.disabled ? <Chip size="small" label="Disabled" color="error" variant="outlined" /> : <Chip size="small" label="Active" color="success" variant="outlined" />;
}

/** The company filter lives in the address (?company_id=), so a company's 'Users' link opens its users. */
function useCompanyFilter(): [number | null, (id: number | null) => void] {
  const [params, setParams] = useSearchParams();
  const raw = params.get('company_id');
  const id = raw && /^\d+$/.test(raw) ? Number(raw) : null;
  const set = (next: number | null) =>
    setParams(
      (current) => {
        const changed = new URLSearchParams(current);
        if (next === null) changed.delete('company_id');
        else changed.set('company_id', String(next));
        return changed;
      },
      { replace: true },
    );
  return [id, set];
}

/**
 * Users: a SysAdmin's of every company (with a company filter), a CompanyAdmin's of their own.
 * Search, create, edit, disable and enable, and a password link shown once.
 */
export function UsersPanel() {
  const viewer = useAdminViewer();
  const sysAdmin = isSysAdmin(viewer);
  const controls = useSearchedPages();
  const [companyId, setCompanyId] = useCompanyFilter();
  const list = useUsers({ ...controls.query, companyId: sysAdmin ? companyId : null });
  const companies = useCompanyNames(sysAdmin);
  const phone = useMediaQuery((theme: Theme) => theme.breakpoints.down('sm'), { noSsr: true });
  const update = useUpdateUser();
  const notify = useNotify();
  // undefined: closed; null: a new user.
  const [editing, setEditing] = useState<TAdminUser | null | undefined>(undefined);
  const [linkFor, setLinkFor] = useState<{ user: TAdminUser; reason: 'created' | 'reset' } | null>(null);
  const [toDisable, setToDisable] = useState<TAdminUser | null>(null);
  const [toResetTwoFactor, setToResetTwoFactor] = useState<TAdminUser | null>(null);
  const resetTwoFactor = useResetTwoFactor();
  const users = list.data?.data ?? [];
  const companyName = (id: number) => companies.data?.nameOf.get(id) ?? `Company ${id}`;

  const setDisabled = async (user: TAdminUser, disabled: boolean) => {
    try {
      await update.mutateAsync({ id: user.id, changes: { disabled } });
      notify.success(disabled ? `${user.username} is disabled and signed out everywhere` : `${user.username} is enabled`);
    } catch (failure) {
      notify.error(adminErrorText(failure));
    } finally {
      setToDisable(null);
    }
  };
  const resetSecondFactor = async (user: TAdminUser) => {
    try {
      await resetTwoFactor.mutateAsync(user.id);
      notify.success(`${user.username} signs in with their password alone until they set up two-factor sign-in again`);
    } catch (failure) {
      notify.error(serverWords(failure));
    } finally {
      setToResetTwoFactor(null);
    }
  };
  const handlers: UserActionHandlers = {
    onEdit: setEditing,
    onResetTwoFactor: setToResetTwoFactor,
    onResetPassword: (user) => setLinkFor({ user, reason: 'reset' }),
    onSetDisabled: (user, disabled) => (disabled ? setToDisable(user) : void setDisabled(user, false)),
  };
  const changeCompany = (id: number | null) => {
    setCompanyId(id);
    controls.pagination.setPage(0);
  };

  return (
    <>
      <ListPanel
        title="Users"
        countText={(n) => count(n, 'user', 'users')}
        list={list}
        pagination={controls.pagination}
        emptyText={controls.q ? `No user matches "${controls.q}" (names, username or e-mail).` : 'No users yet.'}
        tools={
          <>
            <SearchField
              label="Search users"
              placeholder="Name, username or e-mail"
              value={controls.search}
              onChange={controls.setSearch}
              sx={{ width: { xs: '100%', sm: 240 } }}
            />
            <CompanyTwoFactorSwitch companyId={sysAdmin ? (companyId ?? undefined) : viewer.company_id} />
            {sysAdmin && (
              <TextField
                select
                size="small"
                label="Company"
                value={companyId ?? ''}
                onChange={(e) => changeCompany(e.target.value === '' ? null : Number(e.target.value))}
                sx={{ width: { xs: '100%', sm: 200 } }}
                slotProps={{ select: { displayEmpty: true }, inputLabel: { shrink: true } }}
              >
                <MenuItem value="">All companies</MenuItem>
                {/* The address may name a company before the list of names has arrived. */}
                {companyId !== null && !companies.data?.nameOf.has(companyId) && <MenuItem value={companyId}>{companyName(companyId)}</MenuItem>}
                {(companies.data?.companies ?? []).map((company) => (
                  <MenuItem key={company.id} value={company.id}>
                    {company.companyname}
                  </MenuItem>
                ))}
              </TextField>
            )}
            <Button variant="contained" startIcon={<PersonAdd />} onClick={() => setEditing(null)} sx={{ width: { xs: '100%', sm: 'auto' } }}>
              Add User
            </Button>
          </>
        }
      >
        {phone ? (
          <PhoneCardList label="Users">
            {users.map((user) => (
              <PhoneCard key={user.id} label={user.username} actions={<UserActions viewer={viewer} user={user} {...handlers} />}>
                <Typography sx={{ fontWeight: 600, overflowWrap: 'anywhere' }}>{fullName(user)}</Typography>
                <Typography variant="body2" color="text.secondary" sx={{ overflowWrap: 'anywhere' }}>
                  {user.email ? `${user.username} · ${user.email}` : user.username}
                </Typography>
                <Typography variant="body2">{sysAdmin ? `${roleName(user.role)} · ${companyName(user.company_id)}` : roleName(user.role)}</Typography>
                <StatusChip user={user} />
              </PhoneCard>
            ))}
          </PhoneCardList>
        ) : (
          <TableContainer>
            <Table aria-label="Users">
              <TableHead>
                <TableRow>
                  <TableCell>Name</TableCell>
                  <TableCell>Username</TableCell>
                  <TableCell>E-mail</TableCell>
                  <TableCell>Role</TableCell>
                  {sysAdmin && <TableCell>Company</TableCell>}
                  <TableCell>Status</TableCell>
                  <TableCell align="right">Actions</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {users.map((user) => (
                  <TableRow key={user.id} hover>
                    <TableCell sx={{ fontWeight: 600, overflowWrap: 'anywhere' }}>{fullName(user)}</TableCell>
                    <TableCell sx={{ overflowWrap: 'anywhere' }}>{user.username}</TableCell>
                    <TableCell sx={{ overflowWrap: 'anywhere' }}>{user.email ?? ''}</TableCell>
                    <TableCell>{roleName(user.role)}</TableCell>
                    {sysAdmin && <TableCell sx={{ overflowWrap: 'anywhere' }}>{companyName(user.company_id)}</TableCell>}
                    <TableCell>
                      <StatusChip user={user} />
                    </TableCell>
                    <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                      <UserActions viewer={viewer} user={user} {...handlers} />
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </TableContainer>
        )}
      </ListPanel>
      {editing !== undefined && (
        <UserFormDialog
          viewer={viewer}
          user={editing}
          companies={companies.data?.companies ?? []}
          defaultCompanyId={companyId}
          onCreated={(user) => {
            setEditing(undefined);
            setLinkFor({ user, reason: 'created' });
          }}
          onClose={() => setEditing(undefined)}
        />
      )}
      {linkFor && <ResetLinkDialog user={linkFor.user} reason={linkFor.reason} onClose={() => setLinkFor(null)} />}
      <ConfirmDialog
        open={toDisable !== null}
        title="Disable user?"
        message="They can no longer sign in, and every session of theirs ends now. You can enable them again later."
        detail={toDisable ? `${fullName(toDisable)} (${toDisable.username})` : undefined}
        confirmLabel="Disable"
        busyLabel="Disabling..."
        busy={update.isPending}
        busyMessage="Disabling user..."
        onConfirm={() => toDisable && void setDisabled(toDisable, true)}
        onClose={() => setToDisable(null)}
      />
      <ConfirmDialog
        open={toResetTwoFactor !== null}
        title="Reset two-factor sign-in?"
        message="Their authenticator app and recovery codes stop working. They sign in with their password alone, or set up a new authenticator at once where the company requires it. Do this only once you know it is really them asking."
        detail={toResetTwoFactor ? `${fullName(toResetTwoFactor)} (${toResetTwoFactor.username})` : undefined}
        confirmLabel="Reset"
        busyLabel="Resetting..."
        busy={resetTwoFactor.isPending}
        busyMessage="Resetting two-factor sign-in..."
        onConfirm={() => toResetTwoFactor && void resetSecondFactor(toResetTwoFactor)}
        onClose={() => setToResetTwoFactor(null)}
      />
    </>
  );
}
