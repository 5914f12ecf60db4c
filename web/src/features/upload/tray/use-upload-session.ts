import { useEffect, useState, useSyncExternalStore } from 'react';
import { UploadSessions, type SessionOptions, type UploadSession } from './upload-sessions';
import { useUploadsSlot } from './uploads-slot';

/**
 * The dialog's session: the project's one still at work, or a new one. Outside the signed-in
 * frame (a dialog alone, in tests) the dialog keeps sessions of its own, which end with it.
 */
export function useUploadSession(options: SessionOptions): { session: UploadSession | null; local: UploadSessions | null } {
  const slot = useUploadsSlot();
  const [local] = useState(() => (slot ? null : new UploadSessions()));
  const [session, setSession] = useState<UploadSession | null>(null);
  const [initial] = useState(options);
  useEffect(() => {
    const store = local ?? slot?.ensure(() => new UploadSessions());
    if (!store) return;
    const attached = store.attach(initial);
    // The session belongs to a store outside React, taken when the dialog mounts and given back when
    // it goes: made during render, StrictMode's second render would leave an orphan taken for ever.
    // eslint-disable-next-line react-hooks/set-state-in-effect
    setSession(attached);
    return () => store.detach(attached);
  }, [local, slot, initial]);
  useEffect(() => () => local?.disposeAll(), [local]);
  return { session, local };
}

const LOADING = { ready: false, failure: null, line: null } as const;

/** The session's de-identification as the dialog shows it. */
export function useSessionDeid(session: UploadSession) {
  useSyncExternalStore(session.subscribe, () => session.deid);
  const deid = session.deid;
  return {
    ...(deid ?? LOADING),
    policy: () => (deid ? deid.policy() : session.whenReady().then((d) => d.policy())),
  };
}
