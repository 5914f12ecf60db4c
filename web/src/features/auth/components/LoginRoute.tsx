import { Navigate } from 'react-router';
import { useSession } from '../session-context';
import { LoginPage } from './LoginPage';

export function LoginRoute() {
  const { user } = useSession();
  if (user) return <Navigate to="/home" replace />;
  return <LoginPage />;
}
