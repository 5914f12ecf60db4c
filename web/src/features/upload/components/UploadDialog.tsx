import type { TProjectFile } from '@portal/contract';
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
import type { Theme } from '@mui/material/styles';
import useMediaQuery from '@mui/material/useMediaQuery';
import { useQueryClient } from '@tanstack/react-query';
import { useSnackbar } from 'notistack';
import { useCallback, useEffect, useRef, useState, useSyncExternalStore, type ChangeEvent } from 'react';
import PrivacyTipOutlined from '@mui/icons-material/PrivacyTipOutlined';
import { projectFilesQueryOptions } from '../../../api/get-project-files';
import { useNotify } from '../../../components/use-notify';
import { useProgressReset } from '../../../lib/use-progress-reset';
import { failureInWords } from '../../../lib/error-mapping';
import { deliveryApi, type DeliveryApi } from '../api/deliveries';
import { pruneExpiredDeliveries } from '../api/delivery-memory';
import { createTusTransport, discardResumable, pruneExpiredResumes, type Transport } from '../api/tus-upload';
import { selectForDeidentification, type SendGroup } from '../deid/deid-selection';
import { deidentifiesHere, type PolicyLoader } from '../deid/use-deidentification';
import { ACCEPTED_TYPES_HINT, filterFolder, NO_COMPRESSED_FILES, selectAccepted, type FolderSelection, type KeptFile, type LeftOutFile } from '../file-filters';
import type { UploadRow } from '../model/upload-queue';
import { readDropped, type DroppedItem } from '../../../lib/dropped-items';
import { useLeaveGuard } from '../use-upload-queue';
import { queryKeys } from '../../../api/query-keys';
import { SessionDrivers } from '../tray/SessionDrivers';
import type { UploadSession } from '../tray/upload-sessions';
import { useSessionDeid, useUploadSession } from '../tray/use-upload-session';
import { DropZone } from '../../../components/DropZone';
import { FolderInfo, LeftOutNotice } from './FolderInfo';
import { DuplicatesNotice } from '../duplicates/DuplicatesNotice';
import { screenDuplicates } from '../duplicates/screen-duplicates';
import { StopUploadDialog } from './StopUploadDialog';
import { UploadProgress } from './UploadProgress';
import { UploadRows, type RowNote } from './UploadRows';

const hiddenInput = { position: 'absolute', width: 1, height: 1, overflow: 'hidden', clip: 'rect(0 0 0 0)', whiteSpace: 'nowrap' } as const;

const defaultTransport = createTusTransport();

interface FailureReport {
  title: string;
  lines: string[];
}

function reportFailures(rows: UploadRow[]): FailureReport | null {
  const failed = rows.filter((r) => r.status === 'failed');
  if (failed.length === 0) return null;
  return {
    title: `${failed.length} of ${rows.length} ${rows.length === 1 ? 'file was' : 'files were'} not uploaded`,
    lines: failed.map((r) => `${r.path}: ${r.error ? failureInWords(r.error) : 'Not uploaded'}`),
  };
}

interface UploadDialogProps {
  open: boolean;
  projectId: number;
  onClose: () => void;
  /** Called after files arrived, with how many. */
  onUploaded: (arrived: number) => void | Promise<void>;
  /** 'Upload again' on a failed file (issue 36): the file chooser opens with the dialog, to pick that file at once. */
  pickAtOnce?: boolean;
  transport?: Transport;
  deliveries?: DeliveryApi;
  /** Reads the project's de-identification policy and key (tests answer it themselves). */
  loadPolicy?: PolicyLoader;
  /** The rejected file this upload answers (issue 35): one file or one folder sent here replaces it. */
  replaces?: TProjectFile | undefined;
  /** Files and folders dropped on the project's page, added when the dialog opens (issue 36 item 2). */
  dropped?: readonly DroppedItem[] | undefined;
}

/** What a pick becomes: the groups of files to add (a folder, archives opened here), left out, refused. */
interface Picked {
  groups: SendGroup[];
  leftOut: LeftOutFile[];
  refused: string[];
}

/**
 * The dialog shows the project's upload session, which the page's tray keeps once the dialog
 * closes (issue 36): moving elsewhere in the portal does not stop what is on its way.
 */
export default function UploadDialog(props: UploadDialogProps) {
  const { projectId, transport = defaultTransport, deliveries = deliveryApi, loadPolicy, replaces } = props;
  const queryClient = useQueryClient();
  const projectName = queryClient.getQueryData<{ name: string } | null>(queryKeys.project(projectId))?.name ?? null;
  const { session, local } = useUploadSession({ projectId, projectName, transport, deliveries, loadPolicy, replaces: replaces?.id, discard: discardResumable });
  return (
    <>
      {local && <SessionDrivers sessions={local} />}
      {session && <UploadDialogBody {...props} session={session} background={local === null} />}
    </>
  );
}

function UploadDialogBody({ open, projectId, onClose, onUploaded, pickAtOnce = false, replaces, dropped, session, background }: UploadDialogProps & { session: UploadSession; background: boolean }) {
  const notify = useNotify();
  const { enqueueSnackbar } = useSnackbar();
  const queryClient = useQueryClient();
  const [folder, setFolder] = useState<FolderSelection | null>(null);
  const [folderError, setFolderError] = useState<string | null>(null);
  const [leftOut, setLeftOut] = useState<LeftOutFile[]>([]);
  const [failure, setFailure] = useState<FailureReport | null>(null);
  const [notes, setNotes] = useState<ReadonlyMap<string, RowNote>>(new Map());
  const [askingToStop, setAskingToStop] = useState(false);
  const [reading, setReading] = useState(false);
  const [refused, setRefused] = useState<string[]>([]);
  const deid = useSessionDeid(session);
  /** Rows found before sending to repeat a file of the project, with that file's name (issue 36). */
  const [sameContent, setSameContent] = useState<ReadonlyMap<string, string>>(new Map());
  const screened = useRef(new Set<string>());
  const [screening, setScreening] = useState(false);
  // On a phone the rows need the whole screen; the dialog's margins would leave them a sliver.
  const phone = useMediaQuery((theme: Theme) => theme.breakpoints.down('sm'));
  const filesInput = useRef<HTMLInputElement | null>(null);
  const folderInput = useRef<HTMLInputElement | null>(null);
  // 'Upload again': the chooser opens as soon as the input exists (the dialog's portal mounts it a
  // render after the dialog), still within the click that opened the dialog, so the browser allows it.
  const pickedAtOnce = useRef(false);
  const filesInputRef = useCallback(
    (node: HTMLInputElement | null) => {
      filesInput.current = node;
      if (node && pickAtOnce && !pickedAtOnce.current) {
        pickedAtOnce.current = true;
        node.click();
      }
    },
    [pickAtOnce],
  );

  /** Which arrived files repeat one already in the project, from the list the page has just reloaded. */
  const findDuplicates = async (done: UploadRow[]): Promise<Map<string, RowNote>> => {
    // The page has just reloaded this list (onUploaded); without a page it is read here.
    const files: TProjectFile[] = await queryClient.ensureQueryData(projectFilesQueryOptions(projectId)).catch(() => []);
    const byId = new Map(files.map((f) => [f.id, f]));
    const found = new Map<string, RowNote>();
    for (const row of done) {
      const original = row.fileId === null ? undefined : byId.get(byId.get(row.fileId)?.duplicate_of ?? -1);
      if (original) found.set(row.key, { duplicateOf: original.file });
    }
    return found;
  };

  const [progressShown, setProgressShown] = useState(false);
  const scheduleProgressReset = useProgressReset(() => setProgressShown(false));

  const settled = async (rows: UploadRow[], all: readonly UploadRow[]) => {
    // Spec §4: the bar resets 500 ms after the upload ends; the rows keep each file's outcome.
    scheduleProgressReset();
    const done = rows.filter((r) => r.status === 'done');
    const report = reportFailures(rows);
    setFailure(report);
    if (done.length === 0) return;
    const allArrived = done.length === rows.length;
    if (allArrived) {
      notify.success('Files uploaded successfully');
      // The neutral toast: notistack's own info blue fails contrast (3.1:1 with white).
      enqueueSnackbar('Processing has started: each file shows its status in the files table.', { variant: 'default' });
    }
    await onUploaded(done.length);
    const duplicates = await findDuplicates(done);
    setNotes((current) => new Map([...current, ...duplicates]));
    // Spec §4: the dialog closes after a successful upload, unless a row still has something to show
    // (a duplicate, or a file of an earlier press that failed or was cancelled).
    // A file skipped as already in the project is something left to see: the dialog stays.
    const nothingLeft = all.every((r) => r.status === 'done' || (r.status === 'ready' && !sameContent.has(r.key)));
    if (allArrived && nothingLeft && duplicates.size === 0) onClose();
  };

  const queue = session.queue;
  // The listener changes with every render (it closes over the dialog's state); the queue keeps the latest.
  useEffect(() => queue.onSettled((rows, all) => void settled(rows, all)));
  const snapshot = useSyncExternalStore(queue.subscribe, queue.getSnapshot);
  const { rows, active, batch, deliveryFailure } = snapshot;
  useLeaveGuard(active);
  // Stable, so that the memoised rows re-render only when their own file changes.
  const checkRow = useCallback((key: string, checked: boolean) => queue.setChecked(key, checked), [queue]);
  const cancelRow = useCallback((key: string) => queue.cancel(key), [queue]);
  const retryRow = useCallback(
    (key: string) => {
      setFailure(null);
      setProgressShown(true);
      queue.retry(key);
    },
    [queue],
  );

  /**
   * In a project that de-identifies here, a pick's DICOMDIR is left out and its archives are opened
   * (or refused); otherwise what was kept goes as it is, a folder's files as one delivery.
   */
  const prepare = async (kept: KeptFile[], folderName: string | null): Promise<Picked> => {
    const policy = await deid.policy().catch(() => null);
    // Unknown (the dialog says so), the files are listed as picked, and Upload Files stays off.
    if (policy && deidentifiesHere(policy)) return selectForDeidentification(kept, folderName);
    return { groups: [{ folder: folderName, kept }], leftOut: [], refused: [] };
  };

  const addFiles = async (files: File[]) => {
    if (files.length === 0) return;
    setReading(true);
    const selection = await selectAccepted(files);
    const picked = await prepare(selection.kept, null);
    setReading(false);
    setLeftOut([...selection.leftOut, ...picked.leftOut]);
    setRefused(picked.refused);
    for (const group of picked.groups) queue.add(group.kept, group.folder);
  };

  const addFolder = async (files: File[]) => {
    if (files.length === 0) return;
    setReading(true);
    const selection = await filterFolder(files);
    const picked = await prepare(selection.kept, selection.folderName);
    setReading(false);
    setFolder({ ...selection, leftOut: [...selection.leftOut, ...picked.leftOut] });
    setLeftOut([]);
    setRefused(picked.refused);
    setFolderError(selection.kept.length === 0 ? NO_COMPRESSED_FILES : null);
    // A folder is sent as one delivery named after it (an archive opened here, after the archive); picked files stay one row each.
    for (const group of picked.groups) queue.add(group.kept, group.folder);
  };

  const picked = (event: ChangeEvent<HTMLInputElement>): File[] => {
    const files = Array.from(event.target.files ?? []);
    event.target.value = '';
    return files;
  };

  /** Dropped files go as picked files, a dropped folder as a picked folder: one folder at a time, as Select Folder takes them. */
  const addDropped = async (items: readonly DroppedItem[]) => {
    const dropped = await readDropped(items).catch(() => null);
    if (!dropped) {
      setRefused(['What was dropped could not be read; pick it with Select Files or Select Folder instead.']);
      return;
    }
    const [first, ...others] = dropped.folders;
    await addFiles(dropped.files);
    if (first) await addFolder(first.files);
    if (others.length > 0) setRefused((current) => [...current, ...others.map((f) => `“${f.name}” was not added: drop one folder at a time.`)]);
  };
  // What was dropped on the project's page before the dialog opened.
  const initialDrop = useRef(dropped);
  useEffect(() => {
    const items = initialDrop.current;
    initialDrop.current = undefined;
    if (items && items.length > 0) void addDropped(items);
    // Once, when the dialog opens.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  /**
   * Files picked alone and not screened yet are hashed and asked about first: those the project
   * holds already are shown, unchecked (skipped), and nothing is sent until Upload Files is pressed
   * again. Not where files are de-identified here: the bytes sent are not the bytes picked.
   */
  const duplicatesFirst = async (): Promise<boolean> => {
    const fresh = rows.filter((r) => r.checked && r.status === 'ready' && r.folder === null && !screened.current.has(r.key));
    if (fresh.length === 0) return false;
    const policy = await deid.policy().catch(() => null);
    if (!policy || deidentifiesHere(policy)) return false;
    setScreening(true);
    // Not known (the server could not say): the files are sent, and the server marks a repeat on arrival.
    const found = await screenDuplicates(projectId, fresh).catch(() => new Map<string, string>());
    fresh.forEach((r) => screened.current.add(r.key));
    setScreening(false);
    if (found.size === 0) return false;
    setSameContent((current) => new Map([...current, ...found]));
    found.forEach((_, key) => queue.setChecked(key, false));
    return true;
  };

  const upload = async () => {
    setFailure(null);
    if (await duplicatesFirst()) return;
    setProgressShown(true);
    void pruneExpiredResumes().catch(() => undefined);
    pruneExpiredDeliveries();
    queue.start();
  };

  // Esc and a click beside the dialog ask before stopping an upload; the Cancel button stops at once.
  const requestClose = () => {
    if (active) setAskingToStop(true);
    else onClose();
  };
  const cancel = () => {
    if (active) queue.cancelAll();
    else onClose();
  };

  const checkedCount = rows.filter((r) => r.checked).length;
  const foundDuplicates = rows
    .filter((r) => r.status === 'ready' && sameContent.has(r.key))
    .map((r) => ({ key: r.key, path: r.path, original: sameContent.get(r.key) ?? '', send: r.checked }));
  const checking = active && rows.every((r) => r.status !== 'queued' && r.status !== 'uploading');

  return (
    <Dialog open={open} onClose={requestClose} aria-labelledby="upload-title" maxWidth="sm" fullWidth fullScreen={phone}>
      <DialogTitle id="upload-title">Upload Files</DialogTitle>
      <DialogContent>
        <DropZone onDrop={(items) => void addDropped(items)} enabled={!active && !reading}>
          <DialogContentText variant="body2" sx={{ mb: 2 }}>
            {`Select files or a whole folder, or drop them here: ${ACCEPTED_TYPES_HINT}. Archives are extracted and DICOM files processed automatically. An interrupted upload resumes when you pick the same file again.`}
          </DialogContentText>
          {replaces && (
            <Alert severity="info" sx={{ mb: 2 }} data-testid="replaces-line">
              {`This upload replaces “${replaces.file}”, which was rejected: send one file, one archive or one folder.`}
            </Alert>
          )}
          {deid.line && (
            <Alert severity="info" icon={<PrivacyTipOutlined fontSize="inherit" />} sx={{ mb: 2 }} data-testid="deidentification-line">
              {deid.line}
            </Alert>
          )}
          {deid.failure && (
            <Alert severity="error" sx={{ mb: 2 }}>
              <AlertTitle>Nothing can be sent yet</AlertTitle>
              {`Whether this project removes patient identity before upload could not be read: ${deid.failure.message}: ${deid.failure.details}`}
              <Box sx={{ mt: 1 }}>Close this dialog and open it again.</Box>
            </Alert>
          )}
          <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap', mb: 2 }}>
            <Button variant="outlined" startIcon={<UploadFileOutlined />} disabled={active || reading} onClick={() => filesInput.current?.click()}>
              Select Files
            </Button>
            <Button variant="outlined" startIcon={<CreateNewFolderOutlined />} disabled={active || reading} onClick={() => folderInput.current?.click()}>
              Select Folder
            </Button>
            {/*
              No `accept` list: no accept token matches a file without an extension, and DICOM from a CD has
              none (IM000001, DICOMDIR); with one, such files are hidden or greyed out in the picker. Picked
              files go through the same filter as a folder instead, which says what it left out and why.
              The pickers stay outside the buttons: a control nested in a button is unreachable to assistive technology.
            */}
            <input ref={filesInputRef} type="file" multiple={!replaces} onChange={(e) => void addFiles(picked(e))} style={hiddenInput} disabled={active} aria-label="Select Files" tabIndex={-1} />
            <input
              ref={(input) => {
                folderInput.current = input;
                // React does not know the directory-picker attributes, so they are set on the element.
                input?.setAttribute('webkitdirectory', '');
                input?.setAttribute('directory', '');
              }}
              type="file"
              multiple
              onChange={(e) => void addFolder(picked(e))}
              style={hiddenInput}
              disabled={active}
              aria-label="Select Folder"
              tabIndex={-1}
            />
          </Box>
          {folder && <FolderInfo folder={folder} />}
          {folderError && (
            <Alert severity="warning" sx={{ mb: 2 }}>
              {folderError}
            </Alert>
          )}
          {leftOut.length > 0 && <LeftOutNotice leftOut={leftOut} />}
          {refused.length > 0 && (
            <Alert severity="warning" sx={{ mb: 2, wordBreak: 'break-word' }}>
              {refused.map((line) => (
                <Box key={line}>{line}</Box>
              ))}
            </Alert>
          )}
          {failure && (
            <Alert severity="error" sx={{ mb: 2 }} onClose={() => setFailure(null)}>
              <AlertTitle>{failure.title}</AlertTitle>
              {failure.lines.map((line) => (
                <Box key={line} sx={{ wordBreak: 'break-word' }}>
                  {line}
                </Box>
              ))}
              <Box sx={{ mt: 1 }}>Files that arrived are unchecked: press Upload Files again to send only the rest.</Box>
            </Alert>
          )}
          {deliveryFailure && (
            <Alert severity="error" sx={{ mb: 2 }}>
              <AlertTitle>{`Folder "${deliveryFailure.folder}" was not completed`}</AlertTitle>
              {failureInWords(deliveryFailure.error)}
            </Alert>
          )}
          {foundDuplicates.length > 0 && <DuplicatesNotice found={foundDuplicates} onChoose={(key, send) => queue.setChecked(key, send)} />}
          {rows.length > 0 && (
            <UploadRows
              rows={rows}
              notes={notes}
              locked={active}
              onCheck={checkRow}
              onCheckAll={(checked) => queue.setAllChecked(checked)}
              onCancel={cancelRow}
              onRetry={retryRow}
            />
          )}
        </DropZone>
      </DialogContent>
      {/* Spec §2 puts the bar in the footer: it stays in view however long the list of files is. */}
      {batch && (active || progressShown) && (
        <Box sx={{ px: 3, pt: 1, borderTop: 1, borderColor: 'divider' }}>
          <UploadProgress batch={batch} active={active} checking={checking} />
        </Box>
      )}
      <DialogActions>
        <Button onClick={cancel}>Cancel</Button>
        <Button variant="contained" onClick={() => void upload()} disabled={active || reading || screening || !deid.ready || checkedCount === 0}>
          Upload Files
        </Button>
      </DialogActions>
      <StopUploadDialog
        open={askingToStop}
        onKeepUploading={() => setAskingToStop(false)}
        onStop={() => {
          setAskingToStop(false);
          queue.cancelAll();
          onClose();
        }}
        onContinueInBackground={
          background
            ? () => {
                setAskingToStop(false);
                onClose();
              }
            : undefined
        }
      />
    </Dialog>
  );
}
