import type { TEntryKind, TFileContents, TProjectFile } from '@portal/contract';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import LinearProgress from '@mui/material/LinearProgress';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TablePagination from '@mui/material/TablePagination';
import TableRow from '@mui/material/TableRow';
import ToggleButton from '@mui/material/ToggleButton';
import ToggleButtonGroup from '@mui/material/ToggleButtonGroup';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { PAGE_SIZES } from '../../../components/use-pagination';
import { formatUserError } from '../../../lib/error-mapping';
import { formatFileSize } from '../../../lib/format';
import { useFileContents } from '../api/get-file-contents';
import { ProcessingStatus } from './ProcessingStatus';
import { StudyTree } from './StudyTree';

type KindFilter = TEntryKind | 'all';
const KIND_LABELS: Record<TEntryKind, string> = { dicom: 'DICOM', other: 'Other', skipped: 'Skipped' };

function entryDetails(entry: TFileContents['entries'][number]): string {
  if (entry.reason) return entry.reason;
  if (entry.dicom) return [entry.dicom.modality, entry.dicom.series_description].filter(Boolean).join(' · ');
  return '';
}

interface FileContentsDialogProps {
  open: boolean;
  file: TProjectFile;
  onClose: () => void;
}

/** What processing found inside one upload: the study tree and every entry, page by page. */
export default function FileContentsDialog({ open, file, onClose }: FileContentsDialogProps) {
  const [kind, setKind] = useState<KindFilter>('all');
  const [page, setPage] = useState(0);
  const [rowsPerPage, setRowsPerPage] = useState(PAGE_SIZES[1] ?? 10);
  const contentsQuery = useFileContents(file.id, { offset: page * rowsPerPage, limit: rowsPerPage, kind: kind === 'all' ? undefined : kind });
  const contents = contentsQuery.data ?? null;
  const loading = contentsQuery.isFetching;
  const error = contentsQuery.error ? formatUserError(contentsQuery.error) : null;

  return (
    <Dialog open={open} onClose={onClose} aria-labelledby="file-contents-title" maxWidth="md" fullWidth scroll="paper">
      <DialogTitle id="file-contents-title" sx={{ wordBreak: 'break-all' }}>
        {`Contents of ${file.file}`}
      </DialogTitle>
      <DialogContent dividers>
        <Box sx={{ mb: 2 }}>
          <ProcessingStatus processing={file.processing} />
        </Box>
        {loading && <LinearProgress aria-label="Loading contents" sx={{ mb: 2 }} />}
        {error && <Alert severity="error" sx={{ mb: 2 }}>{error}</Alert>}
        {file.processing.status === 'failed' && file.processing.error && (
          <Alert severity="warning" sx={{ mb: 2 }}>{file.processing.error}</Alert>
        )}
        {file.processing.summary?.skipped_reasons && Object.keys(file.processing.summary.skipped_reasons).length > 0 && (
          <Box sx={{ mb: 2 }}>
            <Typography variant="subtitle2" component="h3" gutterBottom>
              Skipped entries by reason
            </Typography>
            <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 1 }}>
              {Object.entries(file.processing.summary.skipped_reasons).map(([reason, count]) => (
                <Chip key={reason} size="small" color="warning" variant="outlined" label={`${reason}: ${count}`} />
              ))}
            </Box>
          </Box>
        )}
        <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 600 }} gutterBottom>
          Studies
        </Typography>
        {contents && <StudyTree studies={contents.studies} />}

        <Box sx={{ display: 'flex', alignItems: 'center', justifyContent: 'space-between', flexWrap: 'wrap', gap: 1, mt: 3, mb: 1 }}>
          <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 600 }}>
            Entries
          </Typography>
          <ToggleButtonGroup
            size="small"
            exclusive
            value={kind}
            aria-label="Show entries of kind"
            onChange={(_e, value: KindFilter | null) => {
              if (!value) return;
              setKind(value);
              setPage(0);
            }}
          >
            <ToggleButton value="all">All</ToggleButton>
            <ToggleButton value="dicom">DICOM</ToggleButton>
            <ToggleButton value="other">Other</ToggleButton>
            <ToggleButton value="skipped">Skipped</ToggleButton>
          </ToggleButtonGroup>
        </Box>
        <Table size="small" aria-label="Entries">
          <TableHead>
            <TableRow>
              <TableCell>Path</TableCell>
              <TableCell>Kind</TableCell>
              <TableCell>Size</TableCell>
              <TableCell>Details</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {contents?.entries.length === 0 && (
              <TableRow>
                <TableCell colSpan={4} align="center">
                  No entries
                </TableCell>
              </TableRow>
            )}
            {contents?.entries.map((entry) => (
              <TableRow key={entry.id}>
                <TableCell sx={{ wordBreak: 'break-all' }}>{entry.path}</TableCell>
                <TableCell>
                  <Chip size="small" label={KIND_LABELS[entry.kind]} color={entry.kind === 'skipped' ? 'warning' : entry.kind === 'dicom' ? 'primary' : 'default'} variant="outlined" />
                </TableCell>
                <TableCell sx={{ whiteSpace: 'nowrap' }}>{formatFileSize(entry.size)}</TableCell>
                <TableCell>{entryDetails(entry)}</TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
        <TablePagination
          component="div"
          count={contents?.page.total ?? 0}
          page={page}
          rowsPerPage={rowsPerPage}
          rowsPerPageOptions={PAGE_SIZES}
          onPageChange={(_e, next) => setPage(next)}
          onRowsPerPageChange={(e) => {
            setRowsPerPage(Number(e.target.value));
            setPage(0);
          }}
        />
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Close</Button>
      </DialogActions>
    </Dialog>
  );
}
