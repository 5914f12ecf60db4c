import Box from '@mui/material/Box';
import MenuItem from '@mui/material/MenuItem';
import TextField from '@mui/material/TextField';
import { SearchField } from '../../../components/SearchField';
import { useProjectCompanies } from '../api/get-projects';
import type { ProjectsQuery } from './use-projects-query';

/** Above the projects list: search by name and, for SysUser and SysAdmin, a company filter; both answered by the server. */
export function ProjectsToolbar({ query, companyFilter }: { query: ProjectsQuery; companyFilter: boolean }) {
  const companies = useProjectCompanies(companyFilter);
  return (
    <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 2, p: 2 }}>
      <SearchField label="Search projects" value={query.search} onChange={query.setSearch} sx={{ flex: '1 1 220px', maxWidth: 420 }} />
      {companyFilter && (
        <TextField
          select
          size="small"
          label="Company"
          value={query.companyId === null ? '' : String(query.companyId)}
          onChange={(event) => query.setCompanyId(event.target.value === '' ? null : Number(event.target.value))}
          sx={{ minWidth: 200, maxWidth: 320 }}
          // 'All companies' is a value like the others, shown in the field rather than hidden under the label.
          slotProps={{ inputLabel: { shrink: true }, select: { displayEmpty: true } }}
        >
          <MenuItem value="">All companies</MenuItem>
          {(companies.data ?? []).map((company) => (
            <MenuItem key={company.id} value={String(company.id)}>
              {company.companyname}
            </MenuItem>
          ))}
        </TextField>
      )}
    </Box>
  );
}
