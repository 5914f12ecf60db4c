import type { TFileEntry } from '@portal/contract';
import { useState } from 'react';
import { downloadEntry } from '../../api/download-file';
import { useNotify } from '../../components/use-notify';
import { percentOf } from '../../lib/progress';
import { useProgressReset } from '../../lib/use-progress-reset';

/** An entry is saved under the last part of its path (the server's attachment name). */
export function entryFileName(path: string): string {
  return path.split('/').filter(Boolean).pop() ?? 'entry';
}

/** Kept entries have bytes to give; skipped ones were never stored. */
export function canDownload(entry: TFileEntry): boolean {
  // An infected entry is refused by the server (issue 37): no button that can only fail.
  return entry.kind !== 'skipped' && entry.sha256 !== null && entry.scan.status !== 'infected';
}

export interface EntryDownload {
  /** The entry being downloaded, or null. */
  entry: TFileEntry | null;
  progress: number;
  start: (entry: TFileEntry) => Promise<void>;
}

/** Downloads one entry of an upload with the spec's percent and toasts, one at a time. */
export function useEntryDownload(fileId: number): EntryDownload {
  const notify = useNotify();
  const [entry, setEntry] = useState<TFileEntry | null>(null);
  const [progress, setProgress] = useState(0);
  const scheduleReset = useProgressReset(() => setProgress(0));

  const start = async (next: TFileEntry) => {
    setEntry(next);
    setProgress(0);
    try {
      const outcome = await downloadEntry(fileId, next.id, next.size, (loaded, total) => setProgress(percentOf(loaded, total ?? next.size)));
      if (outcome === 'saved') {
        setProgress(100);
        notify.success('File downloaded successfully');
      }
    } catch (failure) {
      notify.apiError(failure);
    } finally {
      setEntry(null);
      scheduleReset();
    }
  };
  return { entry, progress, start };
}
