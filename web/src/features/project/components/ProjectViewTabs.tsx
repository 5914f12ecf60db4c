import Box from '@mui/material/Box';
import Tab from '@mui/material/Tab';
import Tabs from '@mui/material/Tabs';
import type { ReactNode } from 'react';
import { useSearchParams } from 'react-router';

export type ProjectView = 'files' | 'studies';

const LABELS: Record<ProjectView, string> = { files: 'Project Files', studies: 'Studies' };

/**
 * The view of the project page, kept in the address (?view=studies) so a reload, a shared link
 * and the browser's back button return to it. The files table is the default and has no parameter.
 */
export function useProjectView(): [ProjectView, (view: ProjectView) => void] {
  const [params, setParams] = useSearchParams();
  const view: ProjectView = params.get('view') === 'studies' ? 'studies' : 'files';
  const setView = (next: ProjectView) =>
    setParams((current) => {
      const updated = new URLSearchParams(current);
      if (next === 'files') updated.delete('view');
      else updated.set('view', next);
      return updated;
    });
  return [view, setView];
}

export function ProjectViewTabs({ view, onChange }: { view: ProjectView; onChange: (view: ProjectView) => void }) {
  return (
    <Tabs value={view} onChange={(_event, next: ProjectView) => onChange(next)} aria-label="Project views" sx={{ mb: 2 }}>
      {(Object.keys(LABELS) as ProjectView[]).map((name) => (
        <Tab key={name} value={name} label={LABELS[name]} id={`project-view-tab-${name}`} aria-controls={`project-view-panel-${name}`} />
      ))}
    </Tabs>
  );
}

/**
 * One view's panel. The files panel stays mounted while hidden, so its page and selection are
 * still there when the user comes back to it.
 */
export function ProjectViewPanel({ name, view, children }: { name: ProjectView; view: ProjectView; children: ReactNode }) {
  return (
    <Box role="tabpanel" id={`project-view-panel-${name}`} aria-labelledby={`project-view-tab-${name}`} hidden={name !== view}>
      {children}
    </Box>
  );
}
