import type { TCompany } from '@portal/contract';
import Add from '@mui/icons-material/Add';
import Button from '@mui/material/Button';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import useMediaQuery from '@mui/material/useMediaQuery';
import type { Theme } from '@mui/material/styles';
import { useState } from 'react';
import { LocalDate } from '../../../components/LocalDate';
import { PhoneCard, PhoneCardList } from '../../../components/PhoneCardList';
import { SearchField } from '../../../components/SearchField';
import { useCompanies } from '../api/get-companies';
import { useSearchedPages } from '../../../components/use-searched-pages';
import { CompanyActions } from './CompanyActions';
import { StorageUsageBar } from '../../../components/StorageUsageBar';
import { CompanyFormDialog } from './CompanyFormDialog';
import { CompanyQuotaDialog } from './CompanyQuotaDialog';
import { count, ListPanel } from './ListPanel';

/** Companies (SysAdmin): searched and paged by the server, created and renamed here. */
export function CompaniesPanel() {
  const controls = useSearchedPages();
  const list = useCompanies(controls.query);
  const phone = useMediaQuery((theme: Theme) => theme.breakpoints.down('sm'), { noSsr: true });
  // undefined: closed; null: a new company.
  const [editing, setEditing] = useState<TCompany | null | undefined>(undefined);
  const [allowance, setAllowance] = useState<TCompany | undefined>(undefined);
  const companies = list.data?.data ?? [];

  return (
    <>
      <ListPanel
        title="Companies"
        countText={(n) => count(n, 'company', 'companies')}
        list={list}
        pagination={controls.pagination}
        emptyText={controls.q ? `No company's name holds "${controls.q}".` : 'No companies yet.'}
        tools={
          <>
            <SearchField label="Search companies" value={controls.search} onChange={controls.setSearch} sx={{ width: { xs: '100%', sm: 260 } }} />
            <Button variant="contained" startIcon={<Add />} onClick={() => setEditing(null)} sx={{ width: { xs: '100%', sm: 'auto' } }}>
              Add Company
            </Button>
          </>
        }
      >
        {phone ? (
          <PhoneCardList label="Companies">
            {companies.map((company) => (
              <PhoneCard key={company.id} label={company.companyname} actions={<CompanyActions company={company} onRename={setEditing} onSetQuota={setAllowance} />}>
                <Typography sx={{ fontWeight: 600, overflowWrap: 'anywhere' }}>{company.companyname}</Typography>
                <Typography variant="body2" color="text.secondary">{`ID: ${company.id}`}</Typography>
                <Typography variant="body2" color="text.secondary">
                  {'Date Created: '}
                  <LocalDate value={company.created_at} />
                </Typography>
                <StorageUsageBar usedBytes={company.used_bytes} quotaBytes={company.quota_bytes} dense />
              </PhoneCard>
            ))}
          </PhoneCardList>
        ) : (
          <TableContainer>
            <Table aria-label="Companies">
              <TableHead>
                <TableRow>
                  <TableCell>Name</TableCell>
                  <TableCell>ID</TableCell>
                  <TableCell>Date Created</TableCell>
                  <TableCell>Date Updated</TableCell>
                  <TableCell>Storage</TableCell>
                  <TableCell align="right">Actions</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {companies.map((company) => (
                  <TableRow key={company.id} hover>
                    <TableCell sx={{ fontWeight: 600, overflowWrap: 'anywhere' }}>{company.companyname}</TableCell>
                    <TableCell>{company.id}</TableCell>
                    <TableCell sx={{ whiteSpace: 'nowrap' }}>
                      <LocalDate value={company.created_at} />
                    </TableCell>
                    <TableCell sx={{ whiteSpace: 'nowrap' }}>
                      <LocalDate value={company.updated_at} />
                    </TableCell>
                    <TableCell>
                      <StorageUsageBar usedBytes={company.used_bytes} quotaBytes={company.quota_bytes} dense />
                    </TableCell>
                    <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                      <CompanyActions company={company} onRename={setEditing} onSetQuota={setAllowance} />
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </TableContainer>
        )}
      </ListPanel>
      {editing !== undefined && <CompanyFormDialog company={editing} onClose={() => setEditing(undefined)} />}
      {allowance && <CompanyQuotaDialog company={allowance} onClose={() => setAllowance(undefined)} />}
    </>
  );
}
