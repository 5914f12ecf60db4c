import type { TAdminUser } from '@portal/contract';
import Block from '@mui/icons-material/Block';
import CheckCircleOutline from '@mui/icons-material/CheckCircleOutlined';
import EditOutlined from '@mui/icons-material/EditOutlined';
import LockReset from '@mui/icons-material/LockReset';
import PhonelinkErase from '@mui/icons-material/PhonelinkErase';
import IconButton from '@mui/material/IconButton';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import type { SessionUser } from '../../../lib/storage';
import { rolesManagedBy } from '../admin-viewer';

export interface UserActionHandlers {
  onEdit: (user: TAdminUser) => void;
  onResetPassword: (user: TAdminUser) => void;
  onSetDisabled: (user: TAdminUser, disabled: boolean) => void;
  /** Issue 37: forget the user's authenticator and recovery codes (a lost phone). */
  onResetTwoFactor: (user: TAdminUser) => void;
}

/** A user's actions, the same in a table row and on a phone's card. */
export function UserActions({ viewer, user, onEdit, onResetPassword, onSetDisabled, onResetTwoFactor }: { viewer: SessionUser; user: TAdminUser } & UserActionHandlers) {
  // DESIGN §5: a CompanyAdmin sees the Sys accounts of their company but cannot change them.
  if (!rolesManagedBy(viewer).includes(user.role)) {
    return (
      <Typography variant="body2" color="text.secondary" sx={{ py: 1.5, px: 1 }}>
        Managed by a SysAdmin
      </Typography>
    );
  }
  const self = user.id === viewer.id;
  return (
    <>
      <Tooltip title="Edit">
        <IconButton aria-label={`Edit user ${user.username}`} onClick={() => onEdit(user)}>
          <EditOutlined />
        </IconButton>
      </Tooltip>
      {/* A disabled button takes no hover, so a <span> carries the tooltip; describeChild gives the
          span a title rather than an aria-label, which a bare span may not carry (issue 36). */}
      <Tooltip describeChild title={user.disabled ? 'Enable the account first' : 'Reset password'}>
        <span>
          <IconButton aria-label={`Reset password of ${user.username}`} onClick={() => onResetPassword(user)} disabled={user.disabled}>
            <LockReset />
          </IconButton>
        </span>
      </Tooltip>
      <Tooltip title="Reset two-factor sign-in">
        <IconButton aria-label={`Reset two-factor sign-in of ${user.username}`} onClick={() => onResetTwoFactor(user)}>
          <PhonelinkErase />
        </IconButton>
      </Tooltip>
      {user.disabled ? (
        <Tooltip title="Enable">
          <IconButton aria-label={`Enable user ${user.username}`} onClick={() => onSetDisabled(user, false)} color="success">
            <CheckCircleOutline />
          </IconButton>
        </Tooltip>
      ) : (
        <Tooltip describeChild title={self ? 'You cannot disable your own account' : 'Disable'}>
          <span>
            <IconButton aria-label={`Disable user ${user.username}`} onClick={() => onSetDisabled(user, true)} disabled={self} color="error">
              <Block />
            </IconButton>
          </span>
        </Tooltip>
      )}
    </>
  );
}
