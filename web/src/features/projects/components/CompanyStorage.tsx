import { ROLES } from '@portal/contract';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import { StorageUsageBar } from '../../../components/StorageUsageBar';
import { useSignedInUser } from '../../auth';
import { useCompanyStorage } from '../api/get-company-storage';

/** Company users see what their company stores against its allowance; SysUser and SysAdmin see every company's projects and no one bar. */
export function CompanyStorage() {
  const user = useSignedInUser();
  const ownCompany = user && (user.role === ROLES.User || user.role === ROLES.CompanyAdmin) ? user.company_id : undefined;
  const storage = useCompanyStorage(ownCompany);
  const company = storage.data;
  if (ownCompany === undefined || !company) return null;
  return (
    <Paper variant="outlined" component="section" aria-label="Company storage" sx={{ p: 2, mb: 2, display: 'flex', flexDirection: { xs: 'column', sm: 'row' }, gap: { xs: 1, sm: 3 }, alignItems: { sm: 'center' } }}>
      <Typography variant="subtitle2" component="h2" sx={{ whiteSpace: 'nowrap' }}>
        Company storage
      </Typography>
      <StorageUsageBar usedBytes={company.used_bytes} quotaBytes={company.quota_bytes} />
    </Paper>
  );
}
