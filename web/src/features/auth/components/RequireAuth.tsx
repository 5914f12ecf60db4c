import { Navigate, Outlet } from 'react-router';
import { CenteredSpinner } from '../../../components/CenteredSpinner';
import { useSession } from '../session-context';

/** Spec §2/§6: signed-out visitors of /home or /study/{id} are sent to /. */
export function RequireAuth() {
  const { user, initializing } = useSession();
  if (initializing) return <CenteredSpinner />;
  if (!user) return <Navigate to="/" replace />;
  return <Outlet />;
}
