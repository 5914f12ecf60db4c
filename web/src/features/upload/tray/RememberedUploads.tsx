import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import Typography from '@mui/material/Typography';
import { useRef, useState, type ChangeEvent } from 'react';
import { formatFileSize } from '../../../lib/format';
import { percentOf } from '../../../lib/progress';
import type { UnfinishedUpload } from './unfinished-store';

const hiddenInput = { position: 'absolute', width: 1, height: 1, overflow: 'hidden', clip: 'rect(0 0 0 0)', whiteSpace: 'nowrap' } as const;

interface RememberedUploadsProps {
  uploads: readonly UnfinishedUpload[];
  /** Resolves with how many of the picked files went on. */
  onPicked: (files: File[], folder: boolean) => Promise<number>;
  onForget: () => void;
}

const NO_MATCH = 'None of the picked files is one of the uploads listed here. Pick the same files or folder, unchanged since they were first picked.';

/** After a reload or a crash: what did not finish, and a way to give the browser the same files again. */
export function RememberedUploads({ uploads, onPicked, onForget }: RememberedUploadsProps) {
  const files = useRef<HTMLInputElement | null>(null);
  const folder = useRef<HTMLInputElement | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const folders = new Set(uploads.map((u) => u.folder).filter((f) => f !== null));
  const picked = async (event: ChangeEvent<HTMLInputElement>, asFolder: boolean) => {
    const chosen = Array.from(event.target.files ?? []);
    event.target.value = '';
    if (chosen.length === 0) return;
    setBusy(true);
    setMessage(null);
    const resumed = await onPicked(chosen, asFolder).catch(() => 0);
    setBusy(false);
    if (resumed === 0) setMessage(NO_MATCH);
  };
  return (
    <Box sx={{ px: 2, py: 1 }} data-testid="remembered-uploads">
      <Typography variant="subtitle2" component="h3">
        Not finished before the page was left
      </Typography>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
        {`Pick the same ${folders.size > 0 ? 'files or folder' : 'files'} again: each goes on from where the server stopped.`}
      </Typography>
      <List dense disablePadding aria-label="Unfinished uploads">
        {uploads.map((u) => (
          <ListItem key={u.id} disablePadding sx={{ display: 'block', py: 0.5 }}>
            <Typography variant="body2" sx={{ overflowWrap: 'anywhere' }}>
              {u.path}
            </Typography>
            <Typography variant="caption" color="text.secondary">
              {`${u.projectName ?? `Project ${u.projectId}`} · ${formatFileSize(u.size)} · ${percentOf(u.sent, u.size)}% sent`}
            </Typography>
          </ListItem>
        ))}
      </List>
      {message && (
        <Alert severity="warning" sx={{ my: 1 }} onClose={() => setMessage(null)}>
          {message}
        </Alert>
      )}
      <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap', mt: 1 }}>
        <Button size="small" variant="outlined" disabled={busy} onClick={() => files.current?.click()}>
          Pick Files Again
        </Button>
        {folders.size > 0 && (
          <Button size="small" variant="outlined" disabled={busy} onClick={() => folder.current?.click()}>
            Pick Folder Again
          </Button>
        )}
        <Button size="small" disabled={busy} onClick={onForget}>
          Forget Them
        </Button>
      </Box>
      <input ref={files} type="file" multiple onChange={(e) => void picked(e, false)} style={hiddenInput} aria-label="Pick files to resume" tabIndex={-1} />
      <input
        ref={(input) => {
          folder.current = input;
          input?.setAttribute('webkitdirectory', '');
        }}
        type="file"
        multiple
        onChange={(e) => void picked(e, true)}
        style={hiddenInput}
        aria-label="Pick folder to resume"
        tabIndex={-1}
      />
    </Box>
  );
}
