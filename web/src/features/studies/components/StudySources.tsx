import type { TProjectStudy } from '@portal/contract';
import Box from '@mui/material/Box';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';

/** A study found in many uploads would fill its row; the rest are named on hover. */
const SHOWN = 3;

/** The uploads and deliveries a study came from, by name. */
export function StudySources({ sources }: { sources: TProjectStudy['sources'] }) {
  const shown = sources.slice(0, SHOWN);
  const rest = sources.slice(SHOWN);
  return (
    <Box component="ul" aria-label="Sources" sx={{ listStyle: 'none', m: 0, p: 0 }}>
      {shown.map((source) => (
        <Typography key={source.file_id} component="li" variant="body2" sx={{ overflowWrap: 'anywhere' }}>
          {source.file}
        </Typography>
      ))}
      {rest.length > 0 && (
        <Typography component="li" variant="body2" color="text.secondary">
          <Tooltip title={rest.map((s) => s.file).join(', ')} describeChild>
            <span tabIndex={0}>{`and ${rest.length} more`}</span>
          </Tooltip>
        </Typography>
      )}
    </Box>
  );
}
