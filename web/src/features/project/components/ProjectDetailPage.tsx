import type { TProjectFile } from '@portal/contract';
import CloudUpload from '@mui/icons-material/CloudUpload';
import DeleteSweep from '@mui/icons-material/DeleteSweep';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Breadcrumbs from '@mui/material/Breadcrumbs';
import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import Skeleton from '@mui/material/Skeleton';
import Typography from '@mui/material/Typography';
import { lazy, Suspense, useState } from 'react';
import { Link as RouterLink, useParams } from 'react-router';
import { BusyOverlay } from '../../../components/BusyOverlay';
import { DropZone } from '../../../components/DropZone';
import type { DroppedItem } from '../../../lib/dropped-items';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { useNotify } from '../../../components/use-notify';
import { mapApiError } from '../../../lib/error-mapping';
import { percentOf } from '../../../lib/progress';
import { useProgressReset } from '../../../lib/use-progress-reset';
import { useQueryClient } from '@tanstack/react-query';
import { downloadProjectFile, HANDED_TO_BROWSER_TEXT } from '../../../api/download-file';
import { getMatchingFiles } from '../../../api/get-project-files';
import { queryKeys } from '../../../api/query-keys';
import { useDeleteFiles } from '../api/delete-file';
import { useProject } from '../api/get-project';
import { useProjectFilesPage } from '../api/get-project-files';
import { BulkDeleteNames } from './BulkDeleteNames';
import { DeidentificationLine } from './DeidentificationLine';
import { ReviewDialog, RulesLine } from '../../review';
import { useSignedInUser } from '../../auth';
import { isReviewer } from '../../../lib/role-names';
import { FilesTable } from './FilesTable';
import { useFilesQuery } from './use-files-query';
import { isInProgress } from '../processing-summary';
import { ProjectViewPanel, ProjectViewTabs, useProjectView } from './ProjectViewTabs';

// The upload feature is reached through its public index only (see web/README.md).
const UploadDialog = lazy(() => import('../../upload').then((upload) => ({ default: upload.UploadDialog })));
const FileContentsDialog = lazy(() => import('./FileContentsDialog'));
const StudiesView = lazy(() => import('../../studies').then((studies) => ({ default: studies.StudiesView })));

export default function ProjectDetailPage() {
  const { id = '' } = useParams();
  // Spec §2: project ids are numeric; anything else cannot name a project.
  if (!/^\d+$/.test(id)) {
    return <Alert severity="error">{'Resource Not Found: The requested file or resource does not exist'}</Alert>;
  }
  return <ProjectDetail key={id} projectId={Number(id)} />;
}

function ProjectDetail({ projectId }: { projectId: number }) {
  const queryClient = useQueryClient();
  const projectQuery = useProject(projectId);
  const query = useFilesQuery();
  const filesQuery = useProjectFilesPage(projectId, query.request);
  const deleteFiles = useDeleteFiles(projectId);
  // The page appears when both the project and its files are read; a failure of either before then
  // shows the error instead. Once shown, a failed refresh of the list keeps the last files.
  const error = projectQuery.error ?? (filesQuery.data === undefined ? filesQuery.error : null);
  const loading = (projectQuery.isPending || filesQuery.isPending) && !error;
  const project = filesQuery.data !== undefined ? (projectQuery.data ?? null) : null;
  const files = filesQuery.data?.files ?? [];
  const total = filesQuery.data?.total ?? 0;
  if (filesQuery.data) query.clampTo(total);
  const reloadFiles = () => queryClient.invalidateQueries({ queryKey: queryKeys.projectFiles(projectId) });
  const notify = useNotify();
  // Selected files by id with their names: a selection may reach beyond this page ('Select all N files').
  const [selected, setSelected] = useState<Map<number, string>>(new Map());
  const [selectingAll, setSelectingAll] = useState(false);
  // A new search or filter starts a new selection: nothing selected stays hidden behind it.
  const filterKey = JSON.stringify([query.filter.q, query.filter.status]);
  const [selectionFilter, setSelectionFilter] = useState(filterKey);
  if (selectionFilter !== filterKey) {
    setSelectionFilter(filterKey);
    setSelected(new Map());
  }
  const [singleDelete, setSingleDelete] = useState<TProjectFile | null>(null);
  const [bulkOpen, setBulkOpen] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [downloading, setDownloading] = useState(false);
  const [downloadProgress, setDownloadProgress] = useState(0);
  const scheduleDownloadReset = useProgressReset(() => setDownloadProgress(0));
  const [uploadOpen, setUploadOpen] = useState(false);
  // 'Upload again' on a failed file (issue 36): the dialog opens on the file chooser, and the failed
  // row gives way to what arrives.
  const [uploadAgain, setUploadAgain] = useState<TProjectFile | null>(null);
  const openUpload = (again: TProjectFile | null = null) => {
    setUploadAgain(again);
    setUploadOpen(true);
  };
  const uploaded = async (arrived: number) => {
    if (uploadAgain && arrived > 0) {
      const failed = uploadAgain;
      setUploadAgain(null);
      await deleteFiles.mutateAsync([failed.id]).catch(() => notify.error(`${failed.file} could not be removed: delete it from the list`));
    }
    await reloadFiles();
  };
  const [contentsOf, setContentsOf] = useState<TProjectFile | null>(null);
  const [reviewing, setReviewing] = useState<TProjectFile | null>(null);
  /** The rejected file the open upload dialog answers (issue 35), if it was opened for that. */
  const [replacing, setReplacing] = useState<TProjectFile | null>(null);
  /** Files and folders dropped on the page (issue 36 item 2): the upload dialog opens with them. */
  const [dropped, setDropped] = useState<DroppedItem[] | undefined>(undefined);
  const reviewer = isReviewer(useSignedInUser()?.role);
  const [view, setView] = useProjectView();

  const download = async (file: TProjectFile) => {
    setDownloading(true);
    setDownloadProgress(0);
    try {
      const outcome = await downloadProjectFile(file, (loaded, total) => setDownloadProgress(percentOf(loaded, total ?? file.filesize)));
      if (outcome === 'saved') {
        setDownloadProgress(100);
        notify.success('File downloaded successfully');
      } else {
        notify.success(HANDED_TO_BROWSER_TEXT);
      }
    } catch (failure) {
      notify.apiError(failure);
    } finally {
      setDownloading(false);
      scheduleDownloadReset();
    }
  };

  const removeFiles = async (ids: number[], successText: string) => {
    setDeleting(true);
    try {
      await deleteFiles.mutateAsync(ids);
      notify.success(successText);
    } catch (failure) {
      notify.apiError(failure);
    } finally {
      setDeleting(false);
      setSingleDelete(null);
      setBulkOpen(false);
      setSelected((current) => new Map([...current].filter(([id]) => !ids.includes(id))));
    }
  };

  const selectAllMatching = async () => {
    setSelectingAll(true);
    try {
      const matching = await getMatchingFiles(projectId, query.filter);
      setSelected(new Map(matching.map((file) => [file.id, file.file])));
    } catch (failure) {
      notify.apiError(failure);
    } finally {
      setSelectingAll(false);
    }
  };

  const selectedIds = [...selected.keys()];
  const n = selectedIds.length;
  const loadError = error ? mapApiError(error) : null;

  return (
    <DropZone
      enabled={Boolean(project) && !uploadOpen}
      onDrop={(items) => {
        setDropped(items);
        setUploadOpen(true);
      }}
    >
      <Breadcrumbs aria-label="Breadcrumb" sx={{ mb: 2 }}>
        <Link component={RouterLink} to="/home" underline="hover" color="inherit">
          Projects
        </Link>
        <Typography color="text.primary">{project?.name ?? (loading ? '…' : '')}</Typography>
      </Breadcrumbs>

      {loadError && !project && !loading && (
        <Alert severity="error" sx={{ mb: 2 }}>{`${loadError.message}: ${loadError.details}`}</Alert>
      )}
      {!project && !loading ? null : (
        <>
          <Paper
            sx={{
              p: { xs: 3, md: 4 },
              mb: 3,
              color: '#fff',
              background: 'linear-gradient(120deg, #0d47a1 0%, #1565c0 55%, #00897b 100%)',
            }}
          >
            {loading ? (
              <Skeleton variant="text" width="40%" sx={{ fontSize: '2rem', bgcolor: 'rgba(255,255,255,0.25)' }} />
            ) : (
              <>
                <Typography variant="h4" component="h1" sx={{ wordBreak: 'break-word' }}>
                  {project?.name}
                </Typography>
                <Typography variant="body1" sx={{ opacity: 0.9 }}>{`${total} files found`}</Typography>
        </>
        )}
      </Paper>

      {/* Above the tabs: the same line heads the files and the studies, where patient names show. */}
      {project && <DeidentificationLine projectId={project.id} />}
      {project && <RulesLine projectId={project.id} />}
      <ProjectViewTabs view={view} onChange={setView} />
      <ProjectViewPanel name="files" view={view}>
      <Paper variant="outlined">
        <Box sx={{ display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: 1, p: 2 }}>
          <Typography variant="h6" component="h2">
            Project Files
          </Typography>
          <Typography variant="body2" color="text.secondary" sx={{ flexGrow: 1 }}>{`(${n} selected)`}</Typography>
          <Button color="error" variant="outlined" startIcon={<DeleteSweep />} disabled={n === 0} onClick={() => setBulkOpen(true)}>
            {`Delete Selected (${n})`}
          </Button>
          <Button variant="contained" startIcon={<CloudUpload />} onClick={() => openUpload()} disabled={!project}>
            Upload Files/Folder
          </Button>
        </Box>
        {loading ? (
          <Box sx={{ p: 2 }}>
            {[0, 1, 2].map((row) => (
              <Skeleton key={row} height={48} />
            ))}
          </Box>
        ) : (
          <FilesTable
            files={files}
            total={total}
            query={query}
            selected={selected}
            onSelectionChange={setSelected}
            selectingAll={selectingAll}
            onSelectAllMatching={() => void selectAllMatching()}
            onOpen={setContentsOf}
            onDownload={(file) => void download(file)}
            onDelete={setSingleDelete}
            onReview={reviewer ? setReviewing : undefined}
            onReplace={(file) => {
              setReplacing(file);
              setUploadOpen(true);
            }}
            onUpload={() => openUpload()}
            onUploadAgain={(file) => openUpload(file)}
          />
        )}
      </Paper>
      </ProjectViewPanel>
      <ProjectViewPanel name="studies" view={view}>
        {view === 'studies' && (
          <Suspense fallback={<Skeleton variant="rounded" height={160} />}>
            <StudiesView projectId={projectId} processing={files.some(isInProgress)} onUpload={() => openUpload()} />
          </Suspense>
        )}
      </ProjectViewPanel>
        </>
      )}

      <ConfirmDialog
        open={singleDelete !== null}
        title="Confirm Delete"
        message="Are you sure you want to delete this file?"
        detail={singleDelete?.file}
        confirmLabel="Delete"
        busyLabel="Deleting..."
        busy={deleting}
        busyMessage="Deleting files..."
        onConfirm={() => singleDelete && void removeFiles([singleDelete.id], 'File deleted successfully')}
        onClose={() => setSingleDelete(null)}
      />
      <ConfirmDialog
        open={bulkOpen}
        title="Confirm Bulk Delete"
        message={`Are you sure you want to delete ${n} selected file(s)? This action cannot be undone.`}
        detail={<BulkDeleteNames names={[...selected.values()]} />}
        confirmLabel={`Delete ${n} Files`}
        busyLabel="Deleting..."
        busy={deleting}
        busyMessage="Deleting files..."
        onConfirm={() => void removeFiles(selectedIds, `${n} files deleted successfully`)}
        onClose={() => setBulkOpen(false)}
      />
      <BusyOverlay open={downloading} title="Downloading file..." progress={downloadProgress} />

      <Suspense fallback={null}>
        {uploadOpen && project && (
          <UploadDialog
            open
            projectId={project.id}
            replaces={replacing ?? undefined}
            dropped={dropped}
            onClose={() => {
              setUploadOpen(false);
              setUploadAgain(null);
              setReplacing(null);
              setDropped(undefined);
            }}
            onUploaded={uploaded}
            pickAtOnce={uploadAgain !== null}
          />
        )}
        {contentsOf && <FileContentsDialog open file={contentsOf} onClose={() => setContentsOf(null)} />}
        {reviewing && <ReviewDialog file={reviewing} onClose={() => setReviewing(null)} />}
      </Suspense>
    </DropZone>
  );
}
