import type { TAdminUser, TCompany, TRole } from '@portal/contract';
import MenuItem from '@mui/material/MenuItem';
import TextField from '@mui/material/TextField';
import { useState } from 'react';
import { useNotify } from '../../../components/use-notify';
import type { SessionUser } from '../../../lib/storage';
import { adminErrorText } from '../admin-errors';
import { isSysAdmin, rolesManagedBy } from '../admin-viewer';
import { useCreateUser, useUpdateUser } from '../api/save-user';
import { roleName } from '../../../lib/role-names';
import { FormDialog } from './FormDialog';

const USERNAME = /^[\p{L}\p{N}._@+-]{1,255}$/u;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

interface Fields {
  username: string;
  firstname: string;
  lastname: string;
  email: string;
  role: TRole;
  companyId: number | '';
}

type Problems = Partial<Record<keyof Fields, string>>;

/** The same rules the server applies (contract ZCreateUser), said before the form is sent. */
export function checkUserFields(fields: Fields, creating: boolean, needsCompany: boolean): Problems {
  const problems: Problems = {};
  if (creating && !fields.username) problems.username = 'The username is required';
  else if (creating && !USERNAME.test(fields.username)) problems.username = 'Letters, digits and . _ @ + - only';
  if (!fields.firstname.trim()) problems.firstname = 'The first name is required';
  if (!fields.lastname.trim()) problems.lastname = 'The last name is required';
  if (fields.email.trim() && !EMAIL.test(fields.email.trim())) problems.email = 'Not an e-mail address';
  if (creating && needsCompany && fields.companyId === '') problems.companyId = 'Choose the company the user belongs to';
  return problems;
}

interface UserFormDialogProps {
  viewer: SessionUser;
  /** null: a new user; otherwise the one edited. */
  user: TAdminUser | null;
  /** A SysAdmin picks the company of a new user; the list's company filter is the first choice. */
  companies: TCompany[];
  defaultCompanyId: number | null;
  onCreated: (user: TAdminUser) => void;
  onClose: () => void;
}

/** Creates a user (without a password: they set theirs with a link) or edits one's names, e-mail and role. */
export function UserFormDialog({ viewer, user, companies, defaultCompanyId, onCreated, onClose }: UserFormDialogProps) {
  const creating = user === null;
  const sysAdmin = isSysAdmin(viewer);
  const create = useCreateUser();
  const update = useUpdateUser();
  const notify = useNotify();
  const [fields, setFields] = useState<Fields>({
    username: user?.username ?? '',
    firstname: user?.firstname ?? '',
    lastname: user?.lastname ?? '',
    email: user?.email ?? '',
    role: user?.role ?? 1,
    companyId: defaultCompanyId ?? '',
  });
  const [shown, setShown] = useState<Problems>({});
  const [error, setError] = useState<string | null>(null);
  const busy = create.isPending || update.isPending;
  const ownAccount = user?.id === viewer.id;
  const set = <K extends keyof Fields>(key: K, value: Fields[K]) => {
    setFields((current) => ({ ...current, [key]: value }));
    setShown((current) => ({ ...current, [key]: undefined }));
  };

  const submit = async () => {
    const problems = checkUserFields(fields, creating, sysAdmin);
    setShown(problems);
    if (Object.keys(problems).length > 0) return;
    setError(null);
    const email = fields.email.trim() || null;
    try {
      if (creating) {
        const made = await create.mutateAsync({
          username: fields.username,
          firstname: fields.firstname.trim(),
          lastname: fields.lastname.trim(),
          role: fields.role,
          email,
          ...(sysAdmin && fields.companyId !== '' ? { company_id: fields.companyId } : {}),
        });
        notify.success('User created');
        if (made) onCreated(made);
        else onClose();
      } else {
        await update.mutateAsync({
          id: user.id,
          changes: {
            firstname: fields.firstname.trim(),
            lastname: fields.lastname.trim(),
            email,
            // One's own role cannot change (the server says so too); it is not sent.
            ...(ownAccount ? {} : { role: fields.role }),
          },
        });
        notify.success('User saved');
        onClose();
      }
    } catch (failure) {
      setError(adminErrorText(failure));
    }
  };

  const field = (key: 'username' | 'firstname' | 'lastname' | 'email', label: string, extra: { autoFocus?: boolean; helper?: string } = {}) => (
    <TextField
      label={label}
      value={fields[key]}
      onChange={(e) => set(key, e.target.value)}
      disabled={busy}
      error={Boolean(shown[key])}
      helperText={shown[key] ?? extra.helper ?? ' '}
      autoFocus={extra.autoFocus}
      fullWidth
      margin="dense"
      slotProps={{ htmlInput: { maxLength: 255 } }}
    />
  );

  return (
    <FormDialog
      open
      title={creating ? 'Add User' : `Edit User ${user.username}`}
      submitLabel="Save"
      busy={busy}
      busyMessage={creating ? 'Creating user...' : 'Saving user...'}
      error={error}
      onSubmit={() => void submit()}
      onClose={onClose}
    >
      {creating && field('username', 'Username', { autoFocus: true, helper: 'Letters, digits and . _ @ + -; it cannot change later' })}
      {field('firstname', 'First Name', { autoFocus: !creating })}
      {field('lastname', 'Last Name')}
      {field('email', 'E-mail (optional)', { helper: 'Where their password link is sent when the portal sends e-mail' })}
      <TextField
        select
        label="Role"
        value={fields.role}
        onChange={(e) => set('role', Number(e.target.value) as TRole)}
        disabled={busy || ownAccount}
        helperText={ownAccount ? 'You cannot change your own role' : ' '}
        fullWidth
        margin="dense"
      >
        {rolesManagedBy(viewer).map((role) => (
          <MenuItem key={role} value={role}>
            {roleName(role)}
          </MenuItem>
        ))}
      </TextField>
      {creating && sysAdmin && (
        <TextField
          select
          label="Company"
          value={fields.companyId}
          onChange={(e) => set('companyId', Number(e.target.value))}
          disabled={busy}
          error={Boolean(shown.companyId)}
          helperText={shown.companyId ?? ' '}
          fullWidth
          margin="dense"
        >
          {companies.map((company) => (
            <MenuItem key={company.id} value={company.id}>
              {company.companyname}
            </MenuItem>
          ))}
        </TextField>
      )}
    </FormDialog>
  );
}
