import type { TCompany } from '@portal/contract';
import EditOutlined from '@mui/icons-material/EditOutlined';
import PeopleOutline from '@mui/icons-material/PeopleOutlined';
import StorageOutlined from '@mui/icons-material/StorageOutlined';
import IconButton from '@mui/material/IconButton';
import Tooltip from '@mui/material/Tooltip';
import { Link as RouterLink } from 'react-router';
import { CompanySsoButton } from '../../sso';

interface CompanyActionsProps {
  company: TCompany;
  onRename: (company: TCompany) => void;
  onSetQuota: (company: TCompany) => void;
}

/** A company's actions, the same in a table row and on a phone's card. */
export function CompanyActions({ company, onRename, onSetQuota }: CompanyActionsProps) {
  return (
    <>
      <Tooltip title="Users">
        <IconButton component={RouterLink} to={`/admin/users?company_id=${company.id}`} aria-label={`Users of ${company.companyname}`}>
          <PeopleOutline />
        </IconButton>
      </Tooltip>
      <Tooltip title="Rename">
        <IconButton aria-label={`Rename company ${company.companyname}`} onClick={() => onRename(company)}>
          <EditOutlined />
        </IconButton>
      </Tooltip>
      <Tooltip title="Storage allowance">
        <IconButton aria-label={`Storage allowance of ${company.companyname}`} onClick={() => onSetQuota(company)}>
          <StorageOutlined />
        </IconButton>
      </Tooltip>
      <CompanySsoButton companyId={company.id} companyName={company.companyname} />
    </>
  );
}
