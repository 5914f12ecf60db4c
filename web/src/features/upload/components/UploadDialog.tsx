import CreateNewFolderOutlined from '@mui/icons-material/CreateNewFolderOutlined';
import UploadFileOutlined from '@mui/icons-material/UploadFileOutlined';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import LinearProgress from '@mui/material/LinearProgress';
import Typography from '@mui/material/Typography';
import { useRef, useState, type ChangeEvent } from 'react';
import { useNotify } from '../../../components/use-notify';
import { mapApiError, type UserFacingError } from '../../../lib/error-mapping';
import { useProgressReset } from '../../../lib/use-progress-reset';
import { uploadFiles as defaultUploadFiles } from '../api/upload-api';
import { ACCEPTED_FILE_TYPES, filterFolder, NO_COMPRESSED_FILES, relativePathOf, type FolderSelection } from '../file-filters';
import { SelectedFilesList, type PickedFile } from './SelectedFilesList';

const hiddenInput = { position: 'absolute', width: 1, height: 1, overflow: 'hidden', clip: 'rect(0 0 0 0)', whiteSpace: 'nowrap' } as const;

function toPicked(files: readonly File[]): PickedFile[] {
  return files.map((file) => {
    const path = relativePathOf(file);
    return { key: `${path}:${file.size}:${file.lastModified}`, path, file, checked: true };
  });
}

/** Adds newly picked files after those already listed, once each. */
function merge(current: PickedFile[], added: PickedFile[]): PickedFile[] {
  const known = new Set(current.map((i) => i.key));
  return [...current, ...added.filter((i) => !known.has(i.key))];
}

interface UploadDialogProps {
  open: boolean;
  projectId: number;
  onClose: () => void;
  onUploaded: () => void | Promise<void>;
  uploadFiles?: typeof defaultUploadFiles;
}

export default function UploadDialog({ open, projectId, onClose, onUploaded, uploadFiles = defaultUploadFiles }: UploadDialogProps) {
  const notify = useNotify();
  const [items, setItems] = useState<PickedFile[]>([]);
  const [folder, setFolder] = useState<FolderSelection | null>(null);
  const [folderError, setFolderError] = useState<string | null>(null);
  const [error, setError] = useState<UserFacingError | null>(null);
  const [uploading, setUploading] = useState(false);
  const [progress, setProgress] = useState(0);
  const filesInput = useRef<HTMLInputElement | null>(null);
  const folderInput = useRef<HTMLInputElement | null>(null);

  const pickFiles = (event: ChangeEvent<HTMLInputElement>) => {
    const files = Array.from(event.target.files ?? []);
    event.target.value = '';
    if (files.length > 0) setItems((current) => merge(current, toPicked(files)));
  };

  const pickFolder = (event: ChangeEvent<HTMLInputElement>) => {
    const files = Array.from(event.target.files ?? []);
    event.target.value = '';
    if (files.length === 0) return;
    const selection = filterFolder(files);
    setFolder(selection);
    if (selection.kept.length === 0) {
      setFolderError(NO_COMPRESSED_FILES);
      return;
    }
    setFolderError(null);
    setItems((current) => merge(current, toPicked(selection.kept)));
  };

  const checked = items.filter((i) => i.checked);
  const scheduleProgressReset = useProgressReset(() => setProgress(0));

  const upload = async () => {
    setUploading(true);
    setError(null);
    setProgress(0);
    try {
      await uploadFiles(projectId, checked.map((i) => i.file), setProgress);
      notify.success('Files uploaded successfully');
      await onUploaded();
      onClose();
    } catch (failure) {
      setError(mapApiError(failure));
      await onUploaded();
    } finally {
      setUploading(false);
      scheduleProgressReset();
    }
  };

  const close = () => {
    if (!uploading) onClose();
  };

  return (
    <Dialog open={open} onClose={close} aria-labelledby="upload-title" maxWidth="sm" fullWidth>
      <DialogTitle id="upload-title">Upload Files</DialogTitle>
      <DialogContent>
        <DialogContentText sx={{ mb: 2 }}>
          Select DICOM files or compressed archives (zip, rar, 7z, tar, gz, bz2), or a whole folder. Uploaded archives are
          extracted and their DICOM files processed automatically.
        </DialogContentText>
        <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap', mb: 2 }}>
          <Button variant="outlined" startIcon={<UploadFileOutlined />} disabled={uploading} onClick={() => filesInput.current?.click()}>
            Select Files
          </Button>
          <Button variant="outlined" startIcon={<CreateNewFolderOutlined />} disabled={uploading} onClick={() => folderInput.current?.click()}>
            Select Folder
          </Button>
          {/* The pickers stay outside the buttons: a control nested in a button is unreachable to assistive technology. */}
          <input ref={filesInput} type="file" multiple accept={ACCEPTED_FILE_TYPES} onChange={pickFiles} style={hiddenInput} disabled={uploading} aria-label="Select Files" tabIndex={-1} />
          <input
            ref={(input) => {
              folderInput.current = input;
              // React does not know the directory-picker attributes, so they are set on the element.
              input?.setAttribute('webkitdirectory', '');
              input?.setAttribute('directory', '');
            }}
            type="file"
            multiple
            onChange={pickFolder}
            style={hiddenInput}
            disabled={uploading}
            aria-label="Select Folder"
            tabIndex={-1}
          />
        </Box>
        {folder && (
          <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }} data-testid="folder-info">
            {`Folder "${folder.folderName}": ${folder.total} files in total, ${folder.kept.length} compressed files`}
          </Typography>
        )}
        {folderError && (
          <Alert severity="warning" sx={{ mb: 2 }}>
            {folderError}
          </Alert>
        )}
        {error && (
          <Alert severity="error" sx={{ mb: 2 }} onClose={() => setError(null)}>
            <AlertTitle>{error.message}</AlertTitle>
            {error.details}
          </Alert>
        )}
        {items.length > 0 && <SelectedFilesList items={items} disabled={uploading} onChange={setItems} />}
        {(uploading || progress > 0) && (
          <Box sx={{ mt: 2 }}>
            <LinearProgress variant="determinate" value={progress} aria-label="Upload progress" />
            <Typography variant="body2" sx={{ mt: 0.5 }}>{`Uploading files... ${progress}%`}</Typography>
          </Box>
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={close} disabled={uploading}>
          Cancel
        </Button>
        <Button variant="contained" onClick={() => void upload()} disabled={uploading || checked.length === 0}>
          Upload Files
        </Button>
      </DialogActions>
    </Dialog>
  );
}
