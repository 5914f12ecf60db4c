import CloseRounded from '@mui/icons-material/CloseRounded';
import ExpandLessRounded from '@mui/icons-material/ExpandLessRounded';
import ExpandMoreRounded from '@mui/icons-material/ExpandMoreRounded';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Divider from '@mui/material/Divider';
import IconButton from '@mui/material/IconButton';
import LinearProgress from '@mui/material/LinearProgress';
import List from '@mui/material/List';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import { Fragment, useState } from 'react';
import { failureInWords } from '../../../lib/error-mapping';
import { formatFileSize } from '../../../lib/format';
import { percentOf } from '../../../lib/progress';
import type { UploadRow } from '../model/upload-queue';
import { RememberedUploads } from './RememberedUploads';
import { filesLeftText, startedRow, summarise } from './tray-summary';
import { TrayRow } from './TrayRow';
import type { UnfinishedUpload } from './unfinished-store';
import type { TraySession } from './use-tray-state';

/** A session of thousands of files lists this many rows, those still moving first. */
const ROWS_SHOWN = 50;

const ORDER: Record<UploadRow['status'], number> = { uploading: 0, finishing: 1, paused: 2, queued: 3, failed: 4, cancelled: 5, done: 6, ready: 7 };

interface UploadTrayProps {
  sessions: readonly TraySession[];
  remembered: readonly UnfinishedUpload[];
  onPicked: (files: File[], folder: boolean) => Promise<number>;
  onForget: () => void;
  onDismiss: () => void;
}

/**
 * The uploads tray (issue 36): stays in a corner while the user moves around the portal, like
 * Google Drive's, with each file's progress and the whole's, pause, cancel and retry.
 */
export function UploadTray({ sessions, remembered, onPicked, onForget, onDismiss }: UploadTrayProps) {
  const [open, setOpen] = useState(true);
  const shown = sessions.filter((s) => !s.session.attached && s.snapshot.rows.some(startedRow));
  if (shown.length === 0 && remembered.length === 0) return null;
  const summary = summarise(shown);
  const percent = percentOf(summary.sentBytes, summary.totalBytes);
  const title = summary.left > 0 ? `Uploading · ${filesLeftText(summary.left)}` : remembered.length > 0 ? 'Uploads to resume' : 'Uploads finished';
  return (
    <Paper
      elevation={8}
      role="region"
      aria-label="Uploads"
      sx={{
        position: 'fixed',
        zIndex: (theme) => theme.zIndex.appBar + 1,
        bottom: { xs: 8, sm: 16 },
        right: { xs: 8, sm: 16 },
        left: { xs: 8, sm: 'auto' },
        width: { sm: 400 },
        maxHeight: { xs: '70vh', sm: '60vh' },
        display: 'flex',
        flexDirection: 'column',
        overflow: 'hidden',
      }}
    >
      <Box sx={{ px: 2, pt: 1.5, pb: 1 }}>
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
          <Typography variant="subtitle1" component="h2" sx={{ flex: 1, fontWeight: 600 }} data-testid="tray-title">
            {title}
          </Typography>
          <IconButton size="small" aria-label={open ? 'Hide the list of uploads' : 'Show the list of uploads'} aria-expanded={open} onClick={() => setOpen(!open)}>
            {open ? <ExpandMoreRounded fontSize="small" /> : <ExpandLessRounded fontSize="small" />}
          </IconButton>
          {summary.left === 0 && remembered.length === 0 && (
            <IconButton size="small" aria-label="Close the uploads tray" onClick={onDismiss}>
              <CloseRounded fontSize="small" />
            </IconButton>
          )}
        </Box>
        {summary.totalBytes > 0 && (
          <>
            <LinearProgress variant="determinate" value={percent} aria-label="Progress of all uploads" sx={{ mt: 1 }} />
            <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mt: 0.5 }}>
              <Typography variant="caption" color="text.secondary" sx={{ flex: 1 }} data-testid="tray-totals">
                {`${percent}% · ${formatFileSize(summary.sentBytes)} of ${formatFileSize(summary.totalBytes)}`}
              </Typography>
              {summary.moving > 0 && (
                <Button size="small" onClick={() => shown.forEach((s) => s.session.queue.pauseAll())}>
                  Pause All
                </Button>
              )}
              {summary.paused > 0 && (
                <Button size="small" onClick={() => shown.forEach((s) => s.session.queue.resumeAll())}>
                  Resume All
                </Button>
              )}
            </Box>
          </>
        )}
      </Box>
      {open && (
        <Box sx={{ overflow: 'auto', borderTop: 1, borderColor: 'divider' }}>
          {shown.map(({ session, snapshot }, index) => {
            const rows = snapshot.rows.filter(startedRow).sort((a, b) => ORDER[a.status] - ORDER[b.status]);
            const name = session.options.projectName ?? `Project ${session.projectId}`;
            return (
              <Fragment key={session.id}>
                {index > 0 && <Divider />}
                <Typography variant="overline" component="h3" sx={{ display: 'block', px: 2, pt: 1 }}>
                  {name}
                </Typography>
                {snapshot.deliveryFailure && (
                  <Alert severity="error" sx={{ mx: 2, mb: 1 }}>
                    {`Folder "${snapshot.deliveryFailure.folder}" was not completed: ${failureInWords(snapshot.deliveryFailure.error)}`}
                  </Alert>
                )}
                <List dense disablePadding aria-label={`Uploads to ${name}`}>
                  {rows.slice(0, ROWS_SHOWN).map((row) => (
                    <TrayRow key={row.key} row={row} queue={session.queue} />
                  ))}
                </List>
                {rows.length > ROWS_SHOWN && (
                  <Typography variant="caption" color="text.secondary" sx={{ display: 'block', px: 2, pb: 1 }}>
                    {`and ${rows.length - ROWS_SHOWN} more files: the upload dialog of ${name} lists them all`}
                  </Typography>
                )}
              </Fragment>
            );
          })}
          {remembered.length > 0 && (
            <>
              {shown.length > 0 && <Divider />}
              <RememberedUploads uploads={remembered} onPicked={onPicked} onForget={onForget} />
            </>
          )}
        </Box>
      )}
    </Paper>
  );
}
