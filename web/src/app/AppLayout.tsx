import AppBar from '@mui/material/AppBar';
import Box from '@mui/material/Box';
import Container from '@mui/material/Container';
import Toolbar from '@mui/material/Toolbar';
import { lazy, Suspense, useRef, useState } from 'react';
import { Link as RouterLink, Outlet } from 'react-router';
import { ColorModeToggle } from '../components/ColorModeToggle';
import { Logo } from '../components/Logo';
import { SkipLink } from '../components/SkipLink';
import { UserMenu } from '../features/auth/components/UserMenu';
import { SignOutWhileUploadingDialog } from '../features/upload/tray/SignOutWhileUploadingDialog';
import { UploadsShell } from '../features/upload/tray/UploadsShell';
import { uploadsInFlight, useUploadsSlot } from '../features/upload/tray/uploads-slot';
import { useSession } from '../features/auth/session-context';
import { useHeadingFocus } from './use-heading-focus';

const ChangePasswordDialog = lazy(() => import('../features/account/components/ChangePasswordDialog'));
const NotificationsDialog = lazy(() => import('../features/notifications/components/NotificationsDialog'));
const ApiTokensDialog = lazy(() => import('../features/api-tokens/components/ApiTokensDialog'));
const TwoFactorDialog = lazy(() => import('../features/two-factor/components/TwoFactorDialog'));

/**
 * The signed-in frame: top bar with logo, colour mode and avatar menu, then the screen. Uploads
 * outlive the dialog and the page it was opened on (issue 36): they live around the whole frame,
 * so that signing out can ask first while they are on their way.
 */
export function AppLayout() {
  return (
    <UploadsShell>
      <Frame />
    </UploadsShell>
  );
}

function Frame() {
  const { user, logout } = useSession();
  const uploads = useUploadsSlot();
  const [signOutAsked, setSignOutAsked] = useState(false);
  const [passwordOpen, setPasswordOpen] = useState(false);
  const [notificationsOpen, setNotificationsOpen] = useState(false);
  const [tokensOpen, setTokensOpen] = useState(false);
  const [twoFactorOpen, setTwoFactorOpen] = useState(false);
  const main = useRef<HTMLElement>(null);
  useHeadingFocus(main);
  return (
    <Box sx={{ minHeight: '100vh', bgcolor: 'background.default', display: 'flex', flexDirection: 'column' }}>
      <SkipLink target="main" />
      <AppBar position="sticky" color="inherit" elevation={0} sx={{ borderBottom: 1, borderColor: 'divider' }}>
        <Toolbar sx={{ gap: 1 }}>
          <Box component={RouterLink} to="/home" aria-label="Secure Upload Portal home" sx={{ color: 'inherit', textDecoration: 'none', flexGrow: 1 }}>
            <Logo />
          </Box>
          <ColorModeToggle />
          <UserMenu
            onChangePassword={() => setPasswordOpen(true)}
            onNotifications={() => setNotificationsOpen(true)}
            onApiTokens={() => setTokensOpen(true)}
            onTwoFactor={() => setTwoFactorOpen(true)}
            onLogout={() => (uploadsInFlight(uploads) ? setSignOutAsked(true) : void logout())}
          />
        </Toolbar>
      </AppBar>
      <Container component="main" id="main" ref={main} tabIndex={-1} maxWidth="lg" sx={{ py: { xs: 2, md: 4 }, flex: 1, '&:focus': { outline: 'none' } }}>
        <Outlet />
      </Container>
      <SignOutWhileUploadingDialog
        open={signOutAsked}
        onKeepUploading={() => setSignOutAsked(false)}
        onSignOut={() => {
          setSignOutAsked(false);
          void logout();
        }}
      />
      {user && passwordOpen && (
        <Suspense fallback={null}>
          <ChangePasswordDialog open={passwordOpen} userId={user.id} onClose={() => setPasswordOpen(false)} />
        </Suspense>
      )}
      {user && notificationsOpen && (
        <Suspense fallback={null}>
          <NotificationsDialog open={notificationsOpen} role={user.role} onClose={() => setNotificationsOpen(false)} />
        </Suspense>
      )}
      {user && tokensOpen && (
        <Suspense fallback={null}>
          <ApiTokensDialog open={tokensOpen} onClose={() => setTokensOpen(false)} />
        </Suspense>
      )}
      {user && twoFactorOpen && (
        <Suspense fallback={null}>
          <TwoFactorDialog open={twoFactorOpen} onClose={() => setTwoFactorOpen(false)} />
        </Suspense>
      )}
    </Box>
  );
}
