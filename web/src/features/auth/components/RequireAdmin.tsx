import { Outlet } from 'react-router';
import { AccessDenied } from '../../../components/AccessDenied';
import { isAdministrator } from '../../../lib/role-names';
import { useSession } from '../session-context';

/**
 * The administration screens are for CompanyAdmins and SysAdmins (DESIGN §5); anyone else signed
 * in is told, in the spec's words for a 403, that they may not see them. The signed-in user goes
 * to the screens as the outlet's context, so they know which role they serve.
 */
export function RequireAdmin() {
  const { user } = useSession();
  if (!user || !isAdministrator(user.role)) return <AccessDenied />;
  return <Outlet context={user} />;
}
