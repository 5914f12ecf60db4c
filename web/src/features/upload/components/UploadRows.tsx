import CloseRounded from '@mui/icons-material/CloseRounded';
import ReplayRounded from '@mui/icons-material/ReplayRounded';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import Chip from '@mui/material/Chip';
import IconButton from '@mui/material/IconButton';
import LinearProgress from '@mui/material/LinearProgress';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemIcon from '@mui/material/ListItemIcon';
import ListItemText from '@mui/material/ListItemText';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import { useVirtualizer } from '@tanstack/react-virtual';
import { Fragment, memo, useRef } from 'react';
import { formatFileSize } from '../../../lib/format';
import { failureInWords } from '../../../lib/error-mapping';
import type { RowStatus, UploadRow } from '../model/upload-queue';

export const STATUS_CHIP: Record<Exclude<RowStatus, 'ready'>, { label: string; color: 'default' | 'info' | 'success' | 'error' | 'warning' }> = {
  queued: { label: 'Queued', color: 'default' },
  uploading: { label: 'Uploading', color: 'info' },
  finishing: { label: 'Checking', color: 'info' },
  paused: { label: 'Paused', color: 'default' },
  done: { label: 'Uploaded', color: 'success' },
  failed: { label: 'Failed', color: 'error' },
  cancelled: { label: 'Cancelled', color: 'warning' },
};

/** Long folder paths wrap after a slash rather than in the middle of a name. */
function PathWithBreaks({ path }: { path: string }) {
  const parts = path.split('/');
  return parts.map((part, i) => (
    <Fragment key={i}>
      {part}
      {i < parts.length - 1 && (
        <>
          /<wbr />
        </>
      )}
    </Fragment>
  ));
}

export interface RowNote {
  /** The file this upload repeats (same SHA-256, already in the project), when the server said so. */
  duplicateOf: string | null;
}

export function describeRow(row: UploadRow, note: RowNote | undefined): string {
  const size = formatFileSize(row.file.size);
  switch (row.status) {
    case 'ready':
    case 'queued':
    case 'cancelled':
      return size;
    case 'uploading':
      return `${formatFileSize(row.sent)} of ${size}${row.bundled > 1 ? ` · in a bundle of ${row.bundled} files` : ''}${row.resumed ? ' · resumed where the server stopped' : ''}`;
    case 'finishing':
      return `${size} sent · the server is checking it`;
    case 'paused':
      return `${formatFileSize(row.sent)} of ${size} · paused, the server keeps what arrived`;
    case 'done':
      if (note?.duplicateOf) return `${size} · same content as ${note.duplicateOf}, kept and marked as a duplicate`;
      // Done without a send of this page: a file of a folder that arrived before a reload.
      return row.send === null ? `${size} · already on the server, processing follows` : `${size} · processing follows`;
    case 'failed':
      return row.error ? failureInWords(row.error) : 'Not uploaded';
  }
}

interface UploadRowsProps {
  rows: readonly UploadRow[];
  notes: ReadonlyMap<string, RowNote>;
  locked: boolean;
  onCheck: (key: string, checked: boolean) => void;
  onCheckAll: (checked: boolean) => void;
  onCancel: (key: string) => void;
  onRetry: (key: string) => void;
}

interface UploadRowItemProps {
  row: UploadRow;
  /** In a long list only the rows in view are drawn, each placed at its offset (LongRowList). */
  placed?: { index: number; count: number; start: number; measure: (element: HTMLElement | null) => void };
  note: RowNote | undefined;
  locked: boolean;
  onCheck: (key: string, checked: boolean) => void;
  onCancel: (key: string) => void;
  onRetry: (key: string) => void;
}

/**
 * One file's row. Memoised: the queue replaces only the rows that changed, so a progress event of
 * one bundle re-renders its own files, not a 2,000-file folder's every row (which held the page for
 * seconds at a time).
 */
const UploadRowItem = memo(function UploadRowItem({ row, placed, note, locked, onCheck, onCancel, onRetry }: UploadRowItemProps) {
  const chip = row.status === 'ready' ? null : row.status === 'done' && note?.duplicateOf ? { label: 'Duplicate', color: 'warning' as const } : STATUS_CHIP[row.status];
  const canCancel = row.status === 'queued' || row.status === 'uploading';
  const canRetry = (row.status === 'failed' && row.retryable) || row.status === 'cancelled' || row.status === 'paused';
  const selectable = row.status === 'ready' || row.status === 'failed' || row.status === 'cancelled';
  return (
    <ListItem
      disablePadding
      sx={{ px: 1, alignItems: 'flex-start', ...(placed && { position: 'absolute', top: 0, left: 0, right: 0, transform: `translateY(${placed.start}px)` }) }}
      {...(placed && { ref: placed.measure, 'data-index': placed.index, 'aria-setsize': placed.count, 'aria-posinset': placed.index + 1 })}
      secondaryAction={
        canCancel ? (
          <Tooltip title="Cancel">
            <IconButton edge="end" size="small" aria-label={`Cancel ${row.path}`} onClick={() => onCancel(row.key)}>
              <CloseRounded fontSize="small" />
            </IconButton>
          </Tooltip>
        ) : canRetry ? (
          <Tooltip title="Retry">
            <IconButton edge="end" size="small" aria-label={`Retry ${row.path}`} onClick={() => onRetry(row.key)}>
              <ReplayRounded fontSize="small" />
            </IconButton>
          </Tooltip>
        ) : null
      }
    >
      <ListItemIcon sx={{ minWidth: 36, mt: 0.5 }}>
        <Checkbox
          edge="start"
          checked={row.checked}
          disabled={locked || !selectable}
          onChange={(e) => onCheck(row.key, e.target.checked)}
          slotProps={{ input: { 'aria-label': row.path } }}
        />
      </ListItemIcon>
      <ListItemText
        sx={{ pr: 4 }}
        primary={
          <Box component="span" sx={{ display: 'flex', alignItems: 'center', gap: 1, flexWrap: 'wrap' }}>
            <Box component="span" sx={{ overflowWrap: 'anywhere' }}>
              <PathWithBreaks path={row.path} />
            </Box>
            {chip && <Chip component="span" size="small" label={chip.label} color={chip.color} variant="outlined" />}
          </Box>
        }
        secondary={
          <>
            <Typography component="span" variant="body2" color={row.status === 'failed' ? 'error' : 'text.secondary'} sx={{ display: 'block' }}>
              {describeRow(row, note)}
            </Typography>
            {(row.status === 'uploading' || row.status === 'finishing') && (
              <LinearProgress
                sx={{ display: 'block', mt: 0.5 }}
                variant={row.status === 'finishing' ? 'indeterminate' : 'determinate'}
                value={row.file.size > 0 ? (row.sent / row.file.size) * 100 : 0}
                aria-label={`Progress of ${row.path}`}
              />
            )}
          </>
        }
      />
    </ListItem>
  );
});

const FRAME = { border: 1, borderColor: 'divider', borderRadius: 1 } as const;

/** From this many files the list draws only the rows in view. */
const LONG_LIST = 100;

type RowListProps = Omit<UploadRowsProps, 'onCheckAll'>;

/**
 * A folder of thousands of files: drawing every row (2,000 MUI rows) held the page for seconds at a
 * time, so only the rows in view (and a few around them) are drawn, in a box that scrolls on its
 * own, also on a phone, where a short list scrolls with the dialog instead.
 */
function LongRowList({ rows, notes, locked, onCheck, onCancel, onRetry }: RowListProps) {
  const scroller = useRef<HTMLDivElement>(null);
  // The app is not built with the React Compiler, whose memoisation this hook's fresh functions
  // would defeat; the row items are memoised by hand and take only plain values from it.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 60,
    overscan: 6,
    // Rows for the box's usual height are drawn at once, before its size is first measured.
    initialRect: { width: 600, height: 300 },
    getItemKey: (index) => rows[index]?.key ?? index,
  });
  return (
    <Box ref={scroller} sx={{ height: { xs: '60vh', sm: 300 }, overflow: 'auto', ...FRAME }}>
      <List dense aria-label="Files to upload" sx={{ position: 'relative', height: virtualizer.getTotalSize(), py: 0 }}>
        {virtualizer.getVirtualItems().map((item) => {
          const row = rows[item.index];
          if (!row) return null;
          return (
            <UploadRowItem
              key={row.key}
              row={row}
              placed={{ index: item.index, count: rows.length, start: item.start, measure: virtualizer.measureElement }}
              note={notes.get(row.key)}
              locked={locked}
              onCheck={onCheck}
              onCancel={onCancel}
              onRetry={onRetry}
            />
          );
        })}
      </List>
    </Box>
  );
}

/** Spec §2's file list, one row per file with its upload state (issue 13). */
export function UploadRows({ rows, notes, locked, onCheck, onCheckAll, onCancel, onRetry }: UploadRowsProps) {
  const checkedCount = rows.filter((r) => r.checked).length;
  return (
    <Box>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, flexWrap: 'wrap' }}>
        <Typography variant="subtitle2" component="h3" sx={{ flexGrow: 1 }}>{`Selected files (${checkedCount} of ${rows.length})`}</Typography>
        <Button size="small" onClick={() => onCheckAll(true)} disabled={locked || rows.length === 0}>
          Select All
        </Button>
        <Button size="small" onClick={() => onCheckAll(false)} disabled={locked || rows.length === 0}>
          Clear
        </Button>
      </Box>
      {rows.length >= LONG_LIST ? (
        <LongRowList rows={rows} notes={notes} locked={locked} onCheck={onCheck} onCancel={onCancel} onRetry={onRetry} />
      ) : (
        // On a phone the dialog is full screen and scrolls as a whole; a box of its own would leave a sliver.
        <List dense aria-label="Files to upload" sx={{ maxHeight: { xs: 'none', sm: 300 }, overflow: 'auto', ...FRAME }}>
          {rows.map((row) => (
            <UploadRowItem key={row.key} row={row} note={notes.get(row.key)} locked={locked} onCheck={onCheck} onCancel={onCancel} onRetry={onRetry} />
          ))}
        </List>
      )}
    </Box>
  );
}
