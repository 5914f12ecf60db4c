import type { TDeidentificationReport } from '@portal/contract';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import { reportWords } from '../../../lib/deidentification-words';

/** The upload's de-identification report, short: what was applied, by whom, what changed, what to review. */
export function DeidentificationReport({ report }: { report: TDeidentificationReport }) {
  const words = reportWords(report);
  return (
    <Box component="section" aria-labelledby="deidentification-report-title" sx={{ mb: 2 }}>
      <Typography id="deidentification-report-title" variant="subtitle1" component="h3" sx={{ fontWeight: 600 }}>
        De-identification
      </Typography>
      <Typography variant="body2">{words.applied}</Typography>
      <Typography variant="body2">{words.by}</Typography>
      {words.notKept && <Typography variant="body2">{words.notKept}</Typography>}
      <Typography variant="body2" color="text.secondary">
        {words.changed}
      </Typography>
      {words.review && (
        <Alert severity="warning" sx={{ mt: 1 }}>
          {words.review}
        </Alert>
      )}
    </Box>
  );
}
