import { useEffect, useState, useSyncExternalStore } from 'react';
import type { DeliveryApi } from './api/deliveries';
import type { Transport } from './api/tus-upload';
import { UploadQueue, type SettledListener } from './model/upload-queue';

export function useUploadQueue(projectId: number, transport: Transport, deliveries: DeliveryApi, onSettled: SettledListener) {
  const [queue] = useState(() => new UploadQueue({ projectId, transport, deliveries }));
  // The listener changes with every render (it closes over the dialog's state); the queue keeps the latest.
  useEffect(() => queue.onSettled(onSettled));
  useEffect(() => () => queue.dispose(), [queue]);
  const snapshot = useSyncExternalStore(queue.subscribe, queue.getSnapshot);
  return { queue, snapshot };
}

/** Leaving or reloading the page while bytes are on the way asks first (the browser shows its own text). */
export function useLeaveGuard(active: boolean): void {
  useEffect(() => {
    if (!active) return;
    const guard = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      // Older Chromium and Safari show the prompt only when returnValue is set.
      event.returnValue = '';
    };
    window.addEventListener('beforeunload', guard);
    return () => window.removeEventListener('beforeunload', guard);
  }, [active]);
}
