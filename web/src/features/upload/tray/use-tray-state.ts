import { useEffect, useReducer, useSyncExternalStore } from 'react';
import type { QueueSnapshot } from '../model/upload-queue';
import type { UploadSession, UploadSessions } from './upload-sessions';

export interface TraySession {
  session: UploadSession;
  snapshot: QueueSnapshot;
}

/** Every session with its queue as it stands, re-read whenever any of them changes. */
export function useTrayState(sessions: UploadSessions): TraySession[] {
  const list = useSyncExternalStore(sessions.subscribe, sessions.getSnapshot);
  const [, changed] = useReducer((n: number) => n + 1, 0);
  useEffect(() => {
    const stops = list.map((s) => s.queue.subscribe(changed));
    return () => stops.forEach((stop) => stop());
  }, [list]);
  return list.map((session) => ({ session, snapshot: session.queue.getSnapshot() }));
}
