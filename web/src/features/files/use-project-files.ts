import type { TProject, TProjectFile } from '@portal/contract';
import { useCallback, useEffect, useState } from 'react';
import { getProject } from '../projects/api/projects-api';
import { listFiles } from './api/files-api';
import { isInProgress } from './processing-summary';

/** While an upload is still being processed, the list is refreshed this often. */
export const PROCESSING_POLL_MS = 3000;

export function useProjectFiles(projectId: number) {
  const [project, setProject] = useState<TProject | null>(null);
  const [files, setFiles] = useState<TProjectFile[]>([]);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<unknown>(null);

  const reloadFiles = useCallback(async () => {
    try {
      setFiles(await listFiles(projectId));
    } catch (failure) {
      setError(failure);
    }
  }, [projectId]);

  useEffect(() => {
    let cancelled = false;
    setLoading(true);
    setError(null);
    Promise.all([getProject(projectId), listFiles(projectId)])
      .then(([loadedProject, loadedFiles]) => {
        if (cancelled) return;
        setProject(loadedProject);
        setFiles(loadedFiles);
      })
      .catch((failure: unknown) => {
        if (!cancelled) setError(failure);
      })
      .finally(() => {
        if (!cancelled) setLoading(false);
      });
    return () => {
      cancelled = true;
    };
  }, [projectId]);

  const pending = files.some(isInProgress);
  useEffect(() => {
    if (!pending) return;
    const timer = window.setInterval(() => void reloadFiles(), PROCESSING_POLL_MS);
    return () => window.clearInterval(timer);
  }, [pending, reloadFiles]);

  return { project, files, loading, error, reloadFiles };
}
