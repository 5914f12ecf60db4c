import AdminPanelSettings from '@mui/icons-material/AdminPanelSettings';
import FactCheck from '@mui/icons-material/FactCheckOutlined';
import Key from '@mui/icons-material/KeyOutlined';
import Logout from '@mui/icons-material/Logout';
import NotificationsOutlined from '@mui/icons-material/NotificationsOutlined';
import Password from '@mui/icons-material/Password';
import PhonelinkLock from '@mui/icons-material/PhonelinkLock';
import Avatar from '@mui/material/Avatar';
import Divider from '@mui/material/Divider';
import IconButton from '@mui/material/IconButton';
import ListItemIcon from '@mui/material/ListItemIcon';
import MenuList from '@mui/material/MenuList';
import Popover from '@mui/material/Popover';
import MenuItem from '@mui/material/MenuItem';
import Typography from '@mui/material/Typography';
import Box from '@mui/material/Box';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { isAdministrator, isReviewer, roleName } from '../../../lib/role-names';
import { useSession } from '../session-context';

/**
 * Spec §2: the avatar's menu with who is signed in, 'Change Password' and 'Logout'; administrators
 * (CompanyAdmin, SysAdmin) find 'Administration' there too (issue 15), and everyone 'Notifications' (issue 35)
 * and 'API tokens' and 'Two-factor sign-in' (issue 37).
 */
export function UserMenu({
  onChangePassword,
  onNotifications,
  onApiTokens,
  onTwoFactor,
  onLogout,
}: {
  onChangePassword: () => void;
  onNotifications?: () => void;
  onApiTokens?: () => void;
  /** 'Two-factor sign-in' (issue 37). */
  onTwoFactor?: () => void;
  /** 'Logout' when the frame has something to ask first (uploads on their way); else the session's logout. */
  onLogout?: () => void;
}) {
  const { user, logout } = useSession();
  const navigate = useNavigate();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  // Spec §2: when the user becomes empty the menu resets.
  if (!user) return null;

  const fullName = `${user.firstname} ${user.lastname}`.trim();
  const initial = user.firstname.charAt(0).toUpperCase() || '?';
  const close = () => setAnchor(null);

  return (
    <>
      <IconButton
        aria-label={`Account menu for ${fullName}`}
        aria-haspopup="menu"
        aria-controls={anchor ? 'account-menu' : undefined}
        aria-expanded={anchor ? 'true' : undefined}
        onClick={(e) => setAnchor(e.currentTarget)}
        size="small"
      >
        <Avatar sx={{ bgcolor: 'primary.main', color: 'primary.contrastText', width: 36, height: 36 }}>{initial}</Avatar>
      </IconButton>
      {/* A popover rather than a Menu: the name, role and company are not menu items. */}
      <Popover
        anchorEl={anchor}
        open={Boolean(anchor)}
        onClose={close}
        anchorOrigin={{ vertical: 'bottom', horizontal: 'right' }}
        transformOrigin={{ vertical: 'top', horizontal: 'right' }}
        slotProps={{ paper: { elevation: 8 } }}
      >
        {/* A named region: a screen reader hears whose account this is before the entries. */}
        <Box role="region" aria-label={`Signed in as ${fullName}`} sx={{ px: 2, py: 1, minWidth: 220 }}>
          <Typography variant="subtitle1" component="p" sx={{ fontWeight: 600 }}>
            {fullName}
          </Typography>
          <Typography variant="body2" color="text.secondary">{`Role: ${roleName(user.role)}`}</Typography>
          <Typography variant="body2" color="text.secondary">{`Company: ${user.company?.companyname ?? 'N/A'}`}</Typography>
        </Box>
        <Divider />
        <MenuList id="account-menu" aria-label="Account" autoFocusItem>
          {isAdministrator(user.role) && (
            <MenuItem
              onClick={() => {
                close();
                void navigate('/admin');
              }}
            >
              <ListItemIcon>
                <AdminPanelSettings fontSize="small" />
              </ListItemIcon>
              Administration
            </MenuItem>
          )}
          {isReviewer(user.role) && (
            <MenuItem
              onClick={() => {
                close();
                void navigate('/review');
              }}
            >
              <ListItemIcon>
                <FactCheck fontSize="small" />
              </ListItemIcon>
              To review
            </MenuItem>
          )}
          {onNotifications && (
            <MenuItem
              onClick={() => {
                close();
                onNotifications();
              }}
            >
              <ListItemIcon>
                <NotificationsOutlined fontSize="small" />
              </ListItemIcon>
              Notifications
            </MenuItem>
          )}
          {onApiTokens && (
            <MenuItem
              onClick={() => {
                close();
                onApiTokens();
              }}
            >
              <ListItemIcon>
                <Key fontSize="small" />
              </ListItemIcon>
              API tokens
            </MenuItem>
          )}
          <MenuItem
            onClick={() => {
              close();
              onChangePassword();
            }}
          >
            <ListItemIcon>
              <Password fontSize="small" />
            </ListItemIcon>
            Change Password
          </MenuItem>
          {onTwoFactor && (
            <MenuItem
              onClick={() => {
                close();
                onTwoFactor();
              }}
            >
              <ListItemIcon>
                <PhonelinkLock fontSize="small" />
              </ListItemIcon>
              Two-factor sign-in
            </MenuItem>
          )}
          <MenuItem
            onClick={() => {
              close();
              if (onLogout) onLogout();
              else void logout();
            }}
          >
            <ListItemIcon>
              <Logout fontSize="small" />
            </ListItemIcon>
            Logout
          </MenuItem>
        </MenuList>
      </Popover>
    </>
  );
}
