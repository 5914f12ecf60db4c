import { createContext, useContext } from 'react';
import type { UploadSessions } from './upload-sessions';

/**
 * Where the signed-in frame keeps the page's upload sessions. The frame holds only this slot: the
 * sessions (and tus, and the tray) come with the upload chunk, loaded when the dialog first opens or
 * when the browser remembers an unfinished upload.
 */
export interface UploadsSlot {
  get: () => UploadSessions | null;
  subscribe: (listener: () => void) => () => void;
  /** The page's sessions, made by the first that needs them. */
  ensure: (make: () => UploadSessions) => UploadSessions;
}

export function makeUploadsSlot(): UploadsSlot {
  let sessions: UploadSessions | null = null;
  const listeners = new Set<() => void>();
  return {
    get: () => sessions,
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    ensure: (make) => {
      if (sessions) return sessions;
      const made = make();
      sessions = made;
      listeners.forEach((l) => l());
      return made;
    },
  };
}

/** Whether bytes of any upload of the page are on their way now (read when asked, not subscribed). */
export function uploadsInFlight(slot: UploadsSlot | null): boolean {
  return slot?.get()?.getSnapshot().some((session) => session.queue.getSnapshot().active) ?? false;
}

export const UploadsContext = createContext<UploadsSlot | null>(null);

export function useUploadsSlot(): UploadsSlot | null {
  return useContext(UploadsContext);
}
