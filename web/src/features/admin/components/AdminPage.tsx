import Box from '@mui/material/Box';
import Tab from '@mui/material/Tab';
import Tabs from '@mui/material/Tabs';
import Typography from '@mui/material/Typography';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Navigate, Link as RouterLink, useParams } from 'react-router';
import { queryKeys } from '../../../api/query-keys';
import { AccessDenied } from '../../../components/AccessDenied';
import { isSysAdmin, useAdminViewer } from '../admin-viewer';
import { useOpenRequestCount } from '../api/get-password-requests';
import { AuditPanel } from './AuditPanel';
import { CompaniesPanel } from './CompaniesPanel';
import { PasswordRequestsPanel } from './PasswordRequestsPanel';
import { UsersPanel } from './UsersPanel';
import { WebhooksPanel } from '../../notifications';
import { ApiTokensPanel } from '../../api-tokens';
import { useCompanyNames } from '../api/get-companies';

const SECTIONS = ['users', 'companies', 'requests', 'webhooks', 'tokens', 'audit'] as const;
type Section = (typeof SECTIONS)[number];
const isSection = (value: string | undefined): value is Section => (SECTIONS as readonly string[]).includes(value ?? '');

/** /admin/<section>: users, companies (SysAdmin), password requests and the audit trail, one tab each. */
export default function AdminPage() {
  const viewer = useAdminViewer();
  const sysAdmin = isSysAdmin(viewer);
  const { section } = useParams();
  const waiting = useOpenRequestCount();
  const queryClient = useQueryClient();
  const companies = useCompanyNames(sysAdmin && (section === 'webhooks' || section === 'tokens'));
  // Requests arrive from the login screen of others: each change of tab reads the count (and the lists) again.
  useEffect(() => {
    void queryClient.invalidateQueries({ queryKey: queryKeys.adminPasswordRequests });
  }, [section, queryClient]);
  if (!isSection(section)) return <Navigate to="/admin/users" replace />;
  // Companies are a SysAdmin's (DESIGN §5): a CompanyAdmin gets the 403 answer, as from the API.
  if (section === 'companies' && !sysAdmin) return <AccessDenied />;

  const open = waiting.data ?? 0;
  const tabs: ReadonlyArray<{ value: Section; label: string }> = [
    { value: 'users', label: 'Users' },
    ...(sysAdmin ? [{ value: 'companies' as const, label: 'Companies' }] : []),
    {
      value: 'requests',
      label: open > 0 ? `Password requests (${open} waiting)` : 'Password requests',
    },
    { value: 'webhooks', label: 'Webhooks' },
    { value: 'tokens', label: 'API tokens' },
    { value: 'audit', label: 'Audit' },
  ];

  return (
    <Box>
      <Box sx={{ mb: 2 }}>
        <Typography variant="h4" component="h1">
          Administration
        </Typography>
        <Typography variant="body1" color="text.secondary">
          {sysAdmin
            ? 'Companies, their users and the audit trail of the whole portal'
            : `The users of ${viewer.company?.companyname ?? 'your company'} and their audit trail`}
        </Typography>
      </Box>
      <Tabs value={section} variant="scrollable" scrollButtons="auto" allowScrollButtonsMobile aria-label="Administration" sx={{ mb: 2, borderBottom: 1, borderColor: 'divider' }}>
        {tabs.map((tab) => (
          <Tab key={tab.value} value={tab.value} label={tab.label} component={RouterLink} to={`/admin/${tab.value}`} />
        ))}
      </Tabs>
      {section === 'users' && <UsersPanel />}
      {section === 'companies' && <CompaniesPanel />}
      {section === 'requests' && <PasswordRequestsPanel />}
      {section === 'webhooks' && (
        <WebhooksPanel
          sysAdmin={sysAdmin}
          companies={companies.data?.companies ?? []}
          companyName={(id) => companies.data?.nameOf.get(id) ?? `Company ${id}`}
        />
      )}
      {section === 'tokens' && <ApiTokensPanel sysAdmin={sysAdmin} companyName={(id) => companies.data?.nameOf.get(id) ?? `Company ${id}`} />}
      {section === 'audit' && <AuditPanel />}
    </Box>
  );
}
