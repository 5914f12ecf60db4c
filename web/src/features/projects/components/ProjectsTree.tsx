import type { TProject, TProjectFile } from '@portal/contract';
import ExpandLess from '@mui/icons-material/ExpandLess';
import ExpandMore from '@mui/icons-material/ExpandMore';
import Collapse from '@mui/material/Collapse';
import List from '@mui/material/List';
import ListItemButton from '@mui/material/ListItemButton';
import ListItemText from '@mui/material/ListItemText';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { downloadProjectFile, HANDED_TO_BROWSER_TEXT } from '../../../api/download-file';
import { projectFilesQueryOptions } from '../../../api/get-project-files';
import { useNotify } from '../../../components/use-notify';

/**
 * Spec §2: the tree view (not selectable, so not rendered by any screen): expanding a project
 * loads its files once; clicking a file downloads it.
 */
export function ProjectsTree({ projects }: { projects: TProject[] }) {
  return (
    <List aria-label="Projects tree">
      {projects.map((project) => (
        <ProjectBranch key={project.id} project={project} />
      ))}
    </List>
  );
}

function ProjectBranch({ project }: { project: TProject }) {
  const notify = useNotify();
  const [open, setOpen] = useState(false);
  // The query waits for the first expansion and then stays enabled, so collapsing and expanding
  // again shows the files already read instead of asking the server again.
  const [expanded, setExpanded] = useState(false);
  const files = useQuery({ ...projectFilesQueryOptions(project.id), enabled: expanded, staleTime: Infinity });

  // One toast per failed read; a later toggle asks again, as the tree always did until files arrive.
  const failedAt = files.isError ? files.errorUpdatedAt : 0;
  useEffect(() => {
    if (failedAt) notify.error('Error loading study files');
  }, [failedAt, notify]);

  const toggle = () => {
    setOpen((current) => !current);
    setExpanded(true);
    if (files.isError) void files.refetch();
  };

  const download = async (file: TProjectFile) => {
    try {
      const outcome = await downloadProjectFile(file, () => undefined);
      notify.success(outcome === 'saved' ? 'File downloaded successfully' : HANDED_TO_BROWSER_TEXT);
    } catch (failure) {
      notify.apiError(failure);
    }
  };

  return (
    <li>
      <ListItemButton onClick={toggle} aria-expanded={open}>
        <ListItemText primary={project.name} />
        {open ? <ExpandLess /> : <ExpandMore />}
      </ListItemButton>
      <Collapse in={open} unmountOnExit>
        <List disablePadding aria-label={`Files of ${project.name}`}>
          {(files.data ?? []).map((file) => (
            <ListItemButton key={file.id} sx={{ pl: 4 }} onClick={() => void download(file)}>
              <ListItemText primary={file.file} />
            </ListItemButton>
          ))}
        </List>
      </Collapse>
    </li>
  );
}
