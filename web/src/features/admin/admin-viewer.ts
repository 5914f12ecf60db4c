import { ROLES } from '@portal/contract';
import { useOutletContext } from 'react-router';
import type { SessionUser } from '../../lib/storage';

/** The signed-in administrator, handed down by the route that let them in (auth's RequireAdmin). */
export function useAdminViewer(): SessionUser {
  return useOutletContext<SessionUser>();
}

export const isSysAdmin = (viewer: Pick<SessionUser, 'role'>) => viewer.role === ROLES.SysAdmin;

/** DESIGN §5: a CompanyAdmin gives and manages the roles User and CompanyAdmin only. */
export function rolesManagedBy(viewer: Pick<SessionUser, 'role'>): number[] {
  return isSysAdmin(viewer) ? [1, 2, 3, 4] : [1, 2];
}
