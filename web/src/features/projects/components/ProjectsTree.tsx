import type { TProject, TProjectFile } from '@portal/contract';
import ExpandLess from '@mui/icons-material/ExpandLess';
import ExpandMore from '@mui/icons-material/ExpandMore';
import Collapse from '@mui/material/Collapse';
import List from '@mui/material/List';
import ListItemButton from '@mui/material/ListItemButton';
import ListItemText from '@mui/material/ListItemText';
import { useState } from 'react';
import { useNotify } from '../../../components/use-notify';
import { downloadFile, listFiles } from '../../files/api/files-api';
import { saveBlob } from '../../files/save-blob';

/**
 * Spec §2: the tree view (not selectable, so not rendered by any screen): expanding a project
 * loads its files once; clicking a file downloads it.
 */
export function ProjectsTree({ projects }: { projects: TProject[] }) {
  const notify = useNotify();
  const [open, setOpen] = useState<Record<number, boolean>>({});
  const [files, setFiles] = useState<Record<number, TProjectFile[]>>({});

  const toggle = async (project: TProject) => {
    setOpen((current) => ({ ...current, [project.id]: !current[project.id] }));
    if (files[project.id]) return;
    try {
      const loaded = await listFiles(project.id);
      setFiles((current) => ({ ...current, [project.id]: loaded }));
    } catch {
      notify.error('Error loading study files');
    }
  };

  const download = async (file: TProjectFile) => {
    try {
      saveBlob(await downloadFile(file.id, () => undefined), file.file);
      notify.success('File downloaded successfully');
    } catch (failure) {
      notify.apiError(failure);
    }
  };

  return (
    <List aria-label="Projects tree">
      {projects.map((project) => (
        <li key={project.id}>
          <ListItemButton onClick={() => void toggle(project)} aria-expanded={Boolean(open[project.id])}>
            <ListItemText primary={project.name} />
            {open[project.id] ? <ExpandLess /> : <ExpandMore />}
          </ListItemButton>
          <Collapse in={Boolean(open[project.id])} unmountOnExit>
            <List disablePadding aria-label={`Files of ${project.name}`}>
              {(files[project.id] ?? []).map((file) => (
                <ListItemButton key={file.id} sx={{ pl: 4 }} onClick={() => void download(file)}>
                  <ListItemText primary={file.file} />
                </ListItemButton>
              ))}
            </List>
          </Collapse>
        </li>
      ))}
    </List>
  );
}
