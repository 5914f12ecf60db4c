import { ROLES, type TProject } from '@portal/contract';
import Add from '@mui/icons-material/Add';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import { useEffect, useState } from 'react';
import { BusyOverlay } from '../../../components/BusyOverlay';
import { CompanyStorage } from './CompanyStorage';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { useNotify } from '../../../components/use-notify';
import { mapApiError } from '../../../lib/error-mapping';
import { useCreateProject } from '../api/create-project';
import { useDeleteProject } from '../api/delete-project';
import { useProjectsPage } from '../api/get-projects';
import { useSignedInUser } from '../../auth';
import { useUpdateProject } from '../api/update-project';
import { ProjectFormDialog } from './ProjectFormDialog';
import { ProjectsTable } from './ProjectsTable';
import { ProjectsTableSkeleton } from './ProjectsTableSkeleton';
import { ProjectsToolbar } from './ProjectsToolbar';
import { useProjectsQuery } from './use-projects-query';

type Busy = null | 'creating' | 'saving' | 'deleting';
const BUSY_TEXT: Record<Exclude<Busy, null>, string> = {
  creating: 'Creating project...',
  saving: 'Saving project...',
  deleting: 'Deleting project...',
};

export default function ProjectsPage() {
  const user = useSignedInUser();
  // SysUser and SysAdmin see every company's projects: the company is a column and a filter.
  const everyCompany = user?.role === ROLES.SysUser || user?.role === ROLES.SysAdmin;
  const query = useProjectsQuery();
  const projectsQuery = useProjectsPage(query.request);
  const projects = projectsQuery.data?.projects ?? [];
  const total = projectsQuery.data?.total ?? 0;
  const { clampTo } = query;
  // A page emptied by a deletion (here or elsewhere) moves to the last page there is.
  useEffect(() => {
    if (projectsQuery.data) clampTo(projectsQuery.data.total);
  }, [projectsQuery.data, clampTo]);
  const createProject = useCreateProject();
  const updateProject = useUpdateProject();
  const deleteProject = useDeleteProject();
  const notify = useNotify();
  const [form, setForm] = useState<{ mode: 'create' | 'edit'; study: TProject | null } | null>(null);
  const [toDelete, setToDelete] = useState<TProject | null>(null);
  const [busy, setBusy] = useState<Busy>(null);

  // Each mutation reads the list again when it settles, success or failure (see its api/ file).
  const run = async (kind: Exclude<Busy, null>, action: () => Promise<unknown>) => {
    setBusy(kind);
    try {
      await action();
      return true;
    } catch (failure) {
      if (kind === 'deleting') notify.error('Failed to delete project');
      else notify.apiError(failure);
      return false;
    } finally {
      setBusy(null);
    }
  };

  const add = (name: string) => void run('creating', () => createProject.mutateAsync(name));
  const edit = (study: TProject, name: string) => void run('saving', () => updateProject.mutateAsync({ project: study, name }));
  const confirmDelete = async () => {
    if (!toDelete) return;
    const ok = await run('deleting', () => deleteProject.mutateAsync(toDelete.id));
    setToDelete(null);
    if (ok) notify.success('Project deleted successfully');
  };

  const openCreate = () => setForm({ mode: 'create', study: null });
  const loadError = projectsQuery.error ? mapApiError(projectsQuery.error) : null;

  return (
    <Box>
      <Box sx={{ display: 'flex', alignItems: { sm: 'center' }, justifyContent: 'space-between', flexDirection: { xs: 'column', sm: 'row' }, gap: 2, mb: 3 }}>
        <Box>
          <Typography variant="h4" component="h1">
            Projects
          </Typography>
          <Typography variant="body1" color="text.secondary">
            Manage and organize your projects
          </Typography>
        </Box>
        <Button variant="contained" startIcon={<Add />} onClick={openCreate}>
          Add Project
        </Button>
      </Box>

      <CompanyStorage />

      {loadError && (
        <Alert severity="error" sx={{ mb: 2 }} action={<Button color="inherit" size="small" onClick={() => void projectsQuery.refetch()}>Retry</Button>}>
          {`${loadError.message}: ${loadError.details}`}
        </Alert>
      )}

      {projectsQuery.isPending ? (
        <Paper variant="outlined">
          <ProjectsTableSkeleton showCompany={everyCompany} />
        </Paper>
      ) : (
        // A list that failed to load is not an empty one: the alert above says so and offers Retry.
        (projects.length > 0 || !loadError) && (
          <Paper variant="outlined">
            {(total > 0 || query.filtered) && <ProjectsToolbar query={query} companyFilter={everyCompany} />}
            <ProjectsTable
              projects={projects}
              total={total}
              query={query}
              showCompany={everyCompany}
              onAdd={openCreate}
              onEdit={(study) => setForm({ mode: 'edit', study })}
              onDelete={setToDelete}
            />
          </Paper>
        )
      )}

      <ProjectFormDialog
        open={form !== null}
        mode={form?.mode ?? 'create'}
        study={form?.study ?? null}
        onAdd={add}
        onEdit={edit}
        onClose={() => setForm(null)}
      />
      <ConfirmDialog
        open={toDelete !== null}
        title="Confirm Delete"
        message="Are you sure you want to delete this project?"
        detail={toDelete?.name}
        confirmLabel="Delete"
        busyLabel="Deleting..."
        busy={busy === 'deleting'}
        busyMessage={BUSY_TEXT.deleting}
        onConfirm={() => void confirmDelete()}
        onClose={() => setToDelete(null)}
      />
      {/* Creating and renaming close their dialog first; deleting keeps the confirm dialog open
          and shows its state there, so no second overlay stacks over it. */}
      <BusyOverlay open={busy === 'creating' || busy === 'saving'} title={busy ? BUSY_TEXT[busy] : ''} />
    </Box>
  );
}
