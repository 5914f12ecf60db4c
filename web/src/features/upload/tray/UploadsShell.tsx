import { lazy, Suspense, useEffect, useState, useSyncExternalStore, type ReactNode } from 'react';
import { currentUserId, listUnfinished } from './unfinished-store';
import { makeUploadsSlot, UploadsContext } from './uploads-slot';

const UploadTrayHost = lazy(() => import('./UploadTrayHost'));

/**
 * Uploads outlive the dialog (issue 36): mounted in the signed-in frame, so moving to another
 * project or the studies view keeps them going, with the tray showing them.
 */
export function UploadsShell({ children }: { children: ReactNode }) {
  const [slot] = useState(makeUploadsSlot);
  const sessions = useSyncExternalStore(slot.subscribe, slot.get);
  const [remembered, setRemembered] = useState(false);
  useEffect(() => {
    let current = true;
    void listUnfinished(currentUserId()).then((found) => current && setRemembered(found.length > 0));
    return () => {
      current = false;
    };
  }, []);
  // Sign-out unmounts the frame: uploads stop, the server keeps their part for a resume.
  useEffect(() => () => slot.get()?.disposeAll(), [slot]);
  return (
    <UploadsContext.Provider value={slot}>
      {children}
      {(sessions !== null || remembered) && (
        <Suspense fallback={null}>
          <UploadTrayHost slot={slot} />
        </Suspense>
      )}
    </UploadsContext.Provider>
  );
}
