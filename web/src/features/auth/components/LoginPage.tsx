import Visibility from '@mui/icons-material/Visibility';
import VisibilityOff from '@mui/icons-material/VisibilityOff';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import IconButton from '@mui/material/IconButton';
import InputAdornment from '@mui/material/InputAdornment';
import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import { lazy, Suspense, useRef, useState, type FormEvent } from 'react';
import { ColorModeToggle } from '../../../components/ColorModeToggle';
import { Logo } from '../../../components/Logo';
import { OutlinedField } from '../../../components/OutlinedField';
import { SsoSignIn } from '../../sso';
import { useSession } from '../session-context';
import { LoginIllustration } from './LoginIllustration';

// Loaded when asked for: the dialog and its call are not needed for the form to be usable (issue 36).
const LoginError = lazy(() => import('./LoginError'));
const ForgotPasswordDialog = lazy(() => import('./ForgotPasswordDialog').then((m) => ({ default: m.ForgotPasswordDialog })));

export function LoginPage() {
  const { login, adopt, loading, error, errorDetails } = useSession();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [showPassword, setShowPassword] = useState(false);
  const [forgotOpen, setForgotOpen] = useState(false);
  // Stays mounted after its first opening, so closing it plays the dialog's exit transition.
  const [forgotLoaded, setForgotLoaded] = useState(false);

  // Issue 36: an empty field is said to be required (rather than sent and answered 'Invalid Login').
  const [missing, setMissing] = useState({ username: false, password: false });
  const usernameRef = useRef<HTMLInputElement>(null);
  const passwordRef = useRef<HTMLInputElement>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const empty = { username: username.trim() === '', password: password === '' };
    setMissing(empty);
    if (empty.username || empty.password) {
      (empty.username ? usernameRef : passwordRef).current?.focus();
      return;
    }
    // After a failure focus goes to the heading (not the page's body), so the next Tab starts at the form.
    if (!(await login(username.trim(), password))) headingRef.current?.focus();
  };

  return (
    <Box component="main" sx={{ minHeight: '100vh', display: 'flex', bgcolor: 'background.default' }}>
      <Box sx={{ flex: 1, display: 'flex', flexDirection: 'column', p: { xs: 2, sm: 4 } }}>
        <Box sx={{ display: 'flex', justifyContent: 'space-between', alignItems: 'center' }}>
          <Logo />
          <ColorModeToggle />
        </Box>
        <Box sx={{ flex: 1, display: 'flex', alignItems: 'center', justifyContent: 'center' }}>
          <Paper component="form" onSubmit={(event) => void submit(event)} noValidate variant="outlined" sx={{ p: { xs: 3, sm: 5 }, width: '100%', maxWidth: 420 }}>
            <Typography variant="h4" component="h1" ref={headingRef} tabIndex={-1} sx={{ '&:focus': { outline: 'none' } }}>
              Welcome back
            </Typography>
            <Typography variant="body1" color="text.secondary" sx={{ mt: 1, mb: 3 }}>
              Secure data upload for partners
            </Typography>
            {error && (
              <Suspense fallback={null}>
                <LoginError error={error} details={errorDetails} />
              </Suspense>
            )}
            <OutlinedField
              label="Username"
              name="username"
              autoComplete="username"
              value={username}
              onChange={(e) => {
                setUsername(e.target.value);
                setMissing((m) => ({ ...m, username: false }));
              }}
              inputRef={usernameRef}
              error={missing.username}
              helperText={missing.username ? 'Username is required' : undefined}
              autoFocus
            />
            <OutlinedField
              label="Password"
              name="password"
              type={showPassword ? 'text' : 'password'}
              autoComplete="current-password"
              value={password}
              onChange={(e) => {
                setPassword(e.target.value);
                setMissing((m) => ({ ...m, password: false }));
              }}
              inputRef={passwordRef}
              error={missing.password}
              helperText={missing.password ? 'Password is required' : undefined}
              endAdornment={
                <InputAdornment position="end">
                  <IconButton aria-label={showPassword ? 'Hide password' : 'Show password'} onClick={() => setShowPassword((shown) => !shown)} edge="end">
                    {showPassword ? <VisibilityOff /> : <Visibility />}
                  </IconButton>
                </InputAdornment>
              }
            />
            <Box sx={{ display: 'flex', justifyContent: 'flex-end', mt: 1 }}>
              <Link component="button" type="button" variant="body2" onClick={() => {
                  setForgotLoaded(true);
                  setForgotOpen(true);
                }}>
                Forgot your password?
              </Link>
            </Box>
            <Button
              type="submit"
              variant="contained"
              size="large"
              fullWidth
              disabled={loading}
              sx={{ mt: 3 }}
              startIcon={loading ? <CircularProgress size={18} color="inherit" aria-hidden="true" /> : undefined}
            >
              Log in
            </Button>
            <SsoSignIn username={username} onSignedIn={adopt} />
          </Paper>
        </Box>
      </Box>
      <Box sx={{ flex: 1, display: { xs: 'none', md: 'block' } }}>
        <LoginIllustration />
      </Box>
      {forgotLoaded && (
        <Suspense fallback={null}>
          <ForgotPasswordDialog open={forgotOpen} username={username} onClose={() => setForgotOpen(false)} />
        </Suspense>
      )}
    </Box>
  );
}
