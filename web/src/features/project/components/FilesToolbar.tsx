import Box from '@mui/material/Box';
import MenuItem from '@mui/material/MenuItem';
import TextField from '@mui/material/TextField';
import type { FileStatus } from '../../../api/get-project-files';
import { SearchField } from '../../../components/SearchField';
import type { FilesQuery } from './use-files-query';

const STATUSES: Array<{ value: FileStatus | ''; label: string }> = [
  { value: '', label: 'All' },
  { value: 'pending', label: 'Pending' },
  { value: 'processing', label: 'Processing' },
  { value: 'ready', label: 'Ready' },
  { value: 'failed', label: 'Failed' },
];

/** Above the files table: search by name and a filter by processing status, both answered by the server. */
export function FilesToolbar({ query }: { query: FilesQuery }) {
  return (
    <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 2, px: 2, pb: 2 }}>
      <SearchField label="Search files" value={query.search} onChange={query.setSearch} sx={{ flex: '1 1 220px', maxWidth: 420 }} />
      <TextField
        select
        size="small"
        label="Processing status"
        value={query.status}
        onChange={(event) => query.setStatus(event.target.value as FileStatus | '')}
        sx={{ minWidth: 180 }}
        // 'All' is a value like the others, shown in the field rather than hidden under the label.
        slotProps={{ inputLabel: { shrink: true }, select: { displayEmpty: true } }}
      >
        {STATUSES.map((status) => (
          <MenuItem key={status.value} value={status.value}>
            {status.label}
          </MenuItem>
        ))}
      </TextField>
    </Box>
  );
}
