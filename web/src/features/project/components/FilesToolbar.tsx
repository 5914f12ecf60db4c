import Box from '@mui/material/Box';
import MenuItem from '@mui/material/MenuItem';
import TextField from '@mui/material/TextField';
import { REVIEW_STATE_LABELS, REVIEW_STATES } from '@portal/contract';
import type { FileReviewState, FileStatus } from '../../../api/get-project-files';
import { SearchField } from '../../../components/SearchField';
import type { FilesQuery } from './use-files-query';

const STATUSES: Array<{ value: FileStatus | ''; label: string }> = [
  { value: '', label: 'All' },
  { value: 'pending', label: 'Pending' },
  { value: 'processing', label: 'Processing' },
  { value: 'ready', label: 'Ready' },
  { value: 'failed', label: 'Failed' },
];

const REVIEWS: Array<{ value: FileReviewState | ''; label: string }> = [{ value: '', label: 'All' }, ...REVIEW_STATES.map((value) => ({ value, label: REVIEW_STATE_LABELS[value] }))];

/** Above the files table: search by name and filters by processing status and review state, all answered by the server. */
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
      <TextField
        select
        size="small"
        label="Review"
        value={query.review}
        onChange={(event) => query.setReview(event.target.value as FileReviewState | '')}
        sx={{ minWidth: 180 }}
        slotProps={{ inputLabel: { shrink: true }, select: { displayEmpty: true } }}
      >
        {REVIEWS.map((review) => (
          <MenuItem key={review.value} value={review.value}>
            {review.label}
          </MenuItem>
        ))}
      </TextField>
    </Box>
  );
}
