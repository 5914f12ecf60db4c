import { ZEntryKind, type TEntryKind, type TProjectFile } from '@portal/contract';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import LinearProgress from '@mui/material/LinearProgress';
import TablePagination from '@mui/material/TablePagination';
import ToggleButton from '@mui/material/ToggleButton';
import ToggleButtonGroup from '@mui/material/ToggleButtonGroup';
import Typography from '@mui/material/Typography';
import useMediaQuery from '@mui/material/useMediaQuery';
import type { Theme } from '@mui/material/styles';
import { useState } from 'react';
import { PAGE_SIZES } from '../../../components/use-pagination';
import { formatUserError } from '../../../lib/error-mapping';
import { useFileContents } from '../api/get-file-contents';
import { contentsReasons } from '../contents-reasons';
import { entryFileName, useEntryDownload } from '../use-entry-download';
import { ContentsEntries } from './ContentsEntries';
import { ContentsReasons } from './ContentsReasons';
import { DeidentificationReport } from './DeidentificationReport';
import { ProcessingStatus } from './ProcessingStatus';
import { ScanStatus } from './ScanStatus';
import { ReviewStatus, RuleOutcomes } from '../../review';
import { withRemedy } from '../failure-remedies';
import { StudyTree } from './StudyTree';

type KindFilter = TEntryKind | 'all';
const KIND_LABELS: Partial<Record<string, string>> = { dicom: 'DICOM', other: 'Other', skipped: 'Skipped' };
/** Every kind the contents call filters by, in the contract's order; a kind added there shows up here. */
const KIND_FILTERS: KindFilter[] = ['all', ...ZEntryKind.options];

function filterLabel(kind: KindFilter): string {
  if (kind === 'all') return 'All';
  return KIND_LABELS[kind] ?? kind.charAt(0).toUpperCase() + kind.slice(1);
}

interface FileContentsDialogProps {
  open: boolean;
  file: TProjectFile;
  onClose: () => void;
}

/**
 * What processing found inside one upload: its de-identification report (flagged entries come first,
 * and a toggle shows only them), why entries were set apart (skipped,
 * unreadable, duplicates), then the entries by kind, page by page, each kept one downloadable,
 * then the study → series tree.
 */
export default function FileContentsDialog({ open, file, onClose }: FileContentsDialogProps) {
  const phone = useMediaQuery((theme: Theme) => theme.breakpoints.down('sm'), { noSsr: true });
  const [kind, setKind] = useState<KindFilter>('all');
  const [review, setReview] = useState(false);
  const report = file.deidentification;
  const canFilterReview = report !== null && report.needs_review_total > 0;
  const [page, setPage] = useState(0);
  const [rowsPerPage, setRowsPerPage] = useState(PAGE_SIZES[1] ?? 10);
  const contentsQuery = useFileContents(file.id, { offset: page * rowsPerPage, limit: rowsPerPage, kind: kind === 'all' ? undefined : kind, review: canFilterReview && review });
  const contents = contentsQuery.data ?? null;
  const error = contentsQuery.error ? formatUserError(contentsQuery.error) : null;
  const download = useEntryDownload(file.id);

  return (
    <Dialog open={open} onClose={onClose} aria-labelledby="file-contents-title" maxWidth="md" fullWidth fullScreen={phone} scroll="paper">
      <DialogTitle id="file-contents-title" sx={{ wordBreak: 'break-all' }}>
        {`Contents of ${file.file}`}
      </DialogTitle>
      <DialogContent dividers>
        <Box sx={{ mb: 2 }}>
          <ProcessingStatus processing={file.processing} />
          <ScanStatus scan={file.scan} />
          <ReviewStatus review={file.review} rules="none" />
        </Box>
        {file.review.rules.length > 0 && (
          <Box component="section" aria-labelledby="contents-rules-title" sx={{ mb: 2 }}>
            <Typography id="contents-rules-title" variant="subtitle1" component="h3" sx={{ fontWeight: 600 }}>
              Arrival rules
            </Typography>
            <RuleOutcomes rules={file.review.rules} />
          </Box>
        )}
        {file.processing.status === 'failed' && file.processing.error && (
          <Alert severity="warning" sx={{ mb: 2 }}>
            {withRemedy(file.processing.error)}
          </Alert>
        )}
        {report && <DeidentificationReport report={report} />}
        <ContentsReasons reasons={contentsReasons(file.processing.summary)} />

        <Box component="section" aria-labelledby="contents-entries-title">
          <Box sx={{ display: 'flex', alignItems: 'center', justifyContent: 'space-between', flexWrap: 'wrap', gap: 1, mb: 1 }}>
            <Typography id="contents-entries-title" variant="subtitle1" component="h3" sx={{ fontWeight: 600 }}>
              {contents ? `Entries (${contents.page.total})` : 'Entries'}
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
              {KIND_FILTERS.map((filter) => (
                <ToggleButton key={filter} value={filter}>
                  {filterLabel(filter)}
                </ToggleButton>
              ))}
            </ToggleButtonGroup>
            {canFilterReview && (
              <ToggleButton
                size="small"
                value="review"
                selected={review}
                color="warning"
                onChange={() => {
                  setReview(!review);
                  setPage(0);
                }}
              >
                Needs review
              </ToggleButton>
            )}
          </Box>
          <Box sx={{ height: 4 }}>{contentsQuery.isFetching && <LinearProgress aria-label="Loading contents" />}</Box>
          {error && (
            <Alert severity="error" sx={{ my: 2 }}>
              {error}
            </Alert>
          )}
          {contents && <ContentsEntries entries={contents.entries} downloading={download.entry} onDownload={(entry) => void download.start(entry)} phone={phone} />}
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
            sx={{ '& .MuiTablePagination-toolbar': { flexWrap: 'wrap', justifyContent: 'flex-end' } }}
          />
        </Box>

        <Box component="section" aria-labelledby="contents-studies-title" sx={{ mt: 2 }}>
          <Typography id="contents-studies-title" variant="subtitle1" component="h3" sx={{ fontWeight: 600 }} gutterBottom>
            Studies
          </Typography>
          {contents && <StudyTree projectId={file.studypetitionid} studies={contents.studies} />}
        </Box>
      </DialogContent>
      <DialogActions sx={{ gap: 2 }}>
        {download.entry && (
          // Shown in the dialog the download came from, not in an overlay stacked over it.
          <Box role="status" aria-live="polite" sx={{ flex: 1, minWidth: 0 }}>
            <LinearProgress variant="determinate" value={download.progress} aria-label="Downloading file..." />
            <Typography variant="body2" sx={{ mt: 0.5, overflowWrap: 'anywhere' }}>
              {`Downloading file... ${download.progress}% (${entryFileName(download.entry.path)})`}
            </Typography>
          </Box>
        )}
        <Button onClick={onClose}>Close</Button>
      </DialogActions>
    </Dialog>
  );
}
