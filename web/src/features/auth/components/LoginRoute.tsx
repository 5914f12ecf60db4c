import { Navigate } from 'react-router';
import { CenteredSpinner } from '../../../components/CenteredSpinner';
import { useSession } from '../session-context';
import { LoginPage } from './LoginPage';

export function LoginRoute() {
  const { user, initializing } = useSession();
  if (initializing) return <CenteredSpinner />;
  if (user) return <Navigate to="/home" replace />;
  return <LoginPage />;
}
