import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import ToggleButton from '@mui/material/ToggleButton';
import ToggleButtonGroup from '@mui/material/ToggleButtonGroup';
import Typography from '@mui/material/Typography';

export interface FoundDuplicate {
  key: string;
  path: string;
  /** The project's file with the same bytes. */
  original: string;
  send: boolean;
}

interface DuplicatesNoticeProps {
  found: readonly FoundDuplicate[];
  onChoose: (key: string, send: boolean) => void;
}

/** Before any byte is sent: files the project holds already, skipped unless the user says otherwise (issue 36). */
export function DuplicatesNotice({ found, onChoose }: DuplicatesNoticeProps) {
  const title = found.length === 1 ? '1 file is already in this project' : `${found.length} files are already in this project`;
  return (
    <Alert severity="info" sx={{ mb: 2 }} data-testid="duplicates-notice">
      <AlertTitle>{title}</AlertTitle>
      Files with the same content are skipped. Choose Send Anyway to send one all the same, then press Upload Files.
      {found.map((d) => (
        <Box key={d.key} sx={{ display: 'flex', alignItems: 'center', gap: 1, flexWrap: 'wrap', mt: 1 }}>
          <Typography variant="body2" sx={{ flex: 1, minWidth: 160, overflowWrap: 'anywhere' }}>
            {d.path === d.original ? d.path : `${d.path}: same content as ${d.original}`}
          </Typography>
          {/* On the paper's white, not the alert's tint: the unpressed button's grey text falls short of 4.5:1 there. */}
          <ToggleButtonGroup size="small" exclusive sx={{ bgcolor: 'background.paper' }} value={d.send ? 'send' : 'skip'} onChange={(_, value: 'send' | 'skip' | null) => value && onChoose(d.key, value === 'send')} aria-label={`What to do with ${d.path}`}>
            <ToggleButton value="skip">Skip</ToggleButton>
            <ToggleButton value="send">Send Anyway</ToggleButton>
          </ToggleButtonGroup>
        </Box>
      ))}
    </Alert>
  );
}
