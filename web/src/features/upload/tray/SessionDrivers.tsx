import { useEffect, useSyncExternalStore } from 'react';
import { useDeidentification } from '../deid/use-deidentification';
import type { UploadSession, UploadSessions } from './upload-sessions';

/**
 * A session's de-identification lives as long as the session, not the dialog: a dialog closed
 * mid-upload must not stop the worker that removes identity from the files still on their way.
 */
function SessionDriver({ session }: { session: UploadSession }) {
  const deid = useDeidentification(session.projectId, session.options.transport, session.options.loadPolicy);
  const { ready, failure, line, transport, makeBundle, policy } = deid;
  useEffect(() => {
    session.setDeid({ ready, failure, line, transport, makeBundle, policy });
    // policy is a new function each render that reads the same request.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [session, ready, failure, line, transport, makeBundle]);
  return null;
}

export function SessionDrivers({ sessions }: { sessions: UploadSessions }) {
  const list = useSyncExternalStore(sessions.subscribe, sessions.getSnapshot);
  return list.map((session) => <SessionDriver key={session.id} session={session} />);
}
