import { Navigate, Outlet } from 'react-router';
import { useSession } from '../session-context';

/** Spec §2/§6: signed-out visitors of /home or /study/{id} are sent to /. */
export function RequireAuth() {
  const { user } = useSession();
  if (!user) return <Navigate to="/" replace />;
  return <Outlet />;
}
