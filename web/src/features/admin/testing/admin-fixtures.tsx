import type { TAdminUser, TAuditEntry, TCompany } from '@portal/contract';
import { Outlet } from 'react-router';
import type { SessionUser } from '../../../lib/storage';
import { aUser } from '../../../test/fixtures';
import { renderAt } from '../../../test/render';
import AdminPage from '../components/AdminPage';

export const companyAdmin: SessionUser = aUser({ id: 3, role: 2, company_id: 7 });
export const sysAdmin: SessionUser = aUser({
  id: 1,
  username: 'sam',
  firstname: 'Sam',
  lastname: 'Operator',
  role: 4,
  company_id: 1,
  company: { id: 1, companyname: 'Portal Operations', created_at: '2026-01-01', updated_at: '2026-01-01', quota_bytes: null, used_bytes: 0 },
});

export function anAdminUser(overrides: Partial<TAdminUser> = {}): TAdminUser {
  return {
    id: 5,
    username: 'uma',
    firstname: 'Uma',
    lastname: 'Upload',
    role: 1,
    company_id: 7,
    email: null,
    disabled: false,
    created_at: '2026-03-01T10:00:00Z',
    updated_at: '2026-03-01T10:00:00Z',
    ...overrides,
  };
}

export function aCompany(overrides: Partial<TCompany> = {}): TCompany {
  return { id: 7, companyname: 'Acme Imaging', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-02T00:00:00Z', quota_bytes: null, used_bytes: 0, ...overrides };
}

export function anAuditRow(overrides: Partial<TAuditEntry> = {}): TAuditEntry {
  return {
    seq: 1,
    at: '2026-03-01T10:00:00Z',
    action: 'user.disabled',
    actor_id: 3,
    actor_name: 'ada',
    company_id: 7,
    ip: '192.0.2.10',
    user_agent: 'Firefox',
    object_type: 'user',
    object_id: '5',
    details: { username: 'uma' },
    hash: 'f'.repeat(64),
    ...overrides,
  };
}

export const page = <T,>(data: T[], total = data.length) => ({ data, page: { page: 1, per_page: 5, total } });

/** The administration screens at `path`, entered as `viewer` (auth's RequireAdmin hands them down). */
export function renderAdmin(viewer: SessionUser, path: string) {
  return renderAt(
    [
      {
        element: <Outlet context={viewer} />,
        children: [
          { path: '/admin', element: <AdminPage /> },
          { path: '/admin/:section', element: <AdminPage /> },
        ],
      },
      { path: '/home', element: <p>Projects</p> },
    ],
    path,
  );
}
