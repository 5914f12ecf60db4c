import type { TFileEntry } from '@portal/contract';
import Download from '@mui/icons-material/Download';
import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import IconButton from '@mui/material/IconButton';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import { formatFileSize } from '../../../lib/format';
import { canDownload } from '../use-entry-download';
import { scanWords } from './ScanStatus';

type ChipColor = 'warning' | 'primary' | 'default';

/** What an entry is, as a person reads it: a DICOM file whose header gave no instance is 'Unreadable'. */
export function entryKind(entry: TFileEntry): { label: string; color: ChipColor } {
  if (entry.kind === 'skipped') return { label: 'Skipped', color: 'warning' };
  if (entry.kind === 'other') return { label: 'Other', color: 'default' };
  if (entry.dicom === null || entry.dicom.sop_instance_uid === null) return { label: 'Unreadable', color: 'warning' };
  return { label: 'DICOM', color: 'primary' };
}

function entryDetails(entry: TFileEntry): string {
  // An infected entry: the signature, before anything else.
  if (entry.scan.status === 'infected') return scanWords(entry.scan, 'entry').detail ?? '';
  // Flagged for review: why a person should look at its pixels comes before anything else.
  if (entry.needs_review_reason) return entry.needs_review_reason;
  if (entry.reason) return entry.reason;
  if (entry.dicom) return [entry.dicom.modality, entry.dicom.series_description].filter(Boolean).join(' · ');
  return '';
}

interface ContentsEntriesProps {
  entries: TFileEntry[];
  /** The entry being downloaded: the others wait, one download at a time. */
  downloading: TFileEntry | null;
  onDownload: (entry: TFileEntry) => void;
  /** Below `sm`: one block per entry, nothing wider than the screen. */
  phone: boolean;
}

function DownloadButton({ entry, downloading, onDownload }: Omit<ContentsEntriesProps, 'entries' | 'phone'> & { entry: TFileEntry }) {
  if (!canDownload(entry)) return null;
  return (
    <Tooltip describeChild title="Download">
      <span>
        <IconButton aria-label={`Download ${entry.path}`} color="primary" disabled={downloading !== null} onClick={() => onDownload(entry)}>
          <Download />
        </IconButton>
      </span>
    </Tooltip>
  );
}

function KindChip({ entry }: { entry: TFileEntry }) {
  const kind = entryKind(entry);
  return (
    <>
      <Chip size="small" label={kind.label} color={kind.color} variant="outlined" />
      {entry.needs_review_reason && <Chip size="small" label="Needs review" color="warning" sx={{ ml: 0.5 }} />}
      {entry.scan.status === 'infected' && <Chip size="small" label="Infected" color="error" sx={{ ml: 0.5 }} />}
    </>
  );
}

/** One page of an upload's entries: path, kind, size, details, and a download for every kept one. */
export function ContentsEntries({ entries, downloading, onDownload, phone }: ContentsEntriesProps) {
  if (phone) {
    return (
      <Box component="ul" aria-label="Entries" sx={{ listStyle: 'none', m: 0, p: 0 }}>
        {entries.length === 0 && (
          <Typography component="li" sx={{ py: 2, textAlign: 'center' }}>
            No entries
          </Typography>
        )}
        {entries.map((entry) => (
          <Box component="li" key={entry.id} sx={{ display: 'flex', gap: 1, py: 1, borderBottom: 1, borderColor: 'divider' }}>
            <Box sx={{ flex: 1, minWidth: 0 }}>
              <Typography variant="body2" sx={{ fontWeight: 600, overflowWrap: 'anywhere' }}>
                {entry.path}
              </Typography>
              <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mt: 0.5 }}>
                <KindChip entry={entry} />
                <Typography variant="body2" color="text.secondary">
                  {formatFileSize(entry.size)}
                </Typography>
              </Box>
              {entryDetails(entry) && (
                <Typography variant="body2" color="text.secondary" sx={{ overflowWrap: 'anywhere' }}>
                  {entryDetails(entry)}
                </Typography>
              )}
            </Box>
            <DownloadButton entry={entry} downloading={downloading} onDownload={onDownload} />
          </Box>
        ))}
      </Box>
    );
  }
  return (
    <Table size="small" aria-label="Entries">
      <TableHead>
        <TableRow>
          <TableCell>Path</TableCell>
          <TableCell>Kind</TableCell>
          <TableCell>Size</TableCell>
          <TableCell>Details</TableCell>
          <TableCell align="right">Download</TableCell>
        </TableRow>
      </TableHead>
      <TableBody>
        {entries.length === 0 && (
          <TableRow>
            <TableCell colSpan={5} align="center">
              No entries
            </TableCell>
          </TableRow>
        )}
        {entries.map((entry) => (
          <TableRow key={entry.id}>
            <TableCell sx={{ wordBreak: 'break-all' }}>{entry.path}</TableCell>
            <TableCell>
              <KindChip entry={entry} />
            </TableCell>
            <TableCell sx={{ whiteSpace: 'nowrap' }}>{formatFileSize(entry.size)}</TableCell>
            <TableCell>{entryDetails(entry)}</TableCell>
            <TableCell align="right" padding="none" sx={{ pr: 1 }}>
              <DownloadButton entry={entry} downloading={downloading} onDownload={onDownload} />
            </TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}
