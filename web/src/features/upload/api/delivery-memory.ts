import { readStoredUser } from '../../../lib/storage';
import { signatureOf, type BundleFile } from './bundle';
import { RESUME_MAX_AGE_MS } from './tus-upload';

const PREFIX = 'portal-delivery:';

/** An open delivery of a folder, and the files of it that have arrived (by signatureOf each). */
export interface RememberedDelivery {
  id: number;
  arrived: string[];
  touchedAt: number;
}

/**
 * What the browser remembers of a folder's open delivery, so that after a reload the same folder
 * picked again goes on in the same delivery (its bundles resume there, its arrived files are not
 * sent again) instead of opening a second one whose paths would all be new.
 */
export interface DeliveryMemory {
  recall(key: string): RememberedDelivery | null;
  remember(key: string, id: number): void;
  markArrived(key: string, files: readonly BundleFile[]): void;
  forget(key: string): void;
}

/** A folder is the same folder when the same user picks it for the same project with the same files. */
export function deliveryKey(projectId: number, folder: string, files: readonly BundleFile[]): string {
  return `${PREFIX}${JSON.stringify([readStoredUser()?.id ?? null, projectId, folder, signatureOf(files)])}`;
}

function read(key: string): RememberedDelivery | null {
  try {
    const value = JSON.parse(localStorage.getItem(key) ?? 'null') as RememberedDelivery | null;
    return value && typeof value.id === 'number' && Array.isArray(value.arrived) ? value : null;
  } catch {
    return null;
  }
}

function write(key: string, value: RememberedDelivery): void {
  try {
    localStorage.setItem(key, JSON.stringify(value));
  } catch {
    // A full localStorage costs the resume after a reload, never the upload itself.
  }
}

export const localDeliveryMemory: DeliveryMemory = {
  recall: read,
  remember: (key, id) => write(key, { id, arrived: [], touchedAt: Date.now() }),
  markArrived: (key, files) => {
    const known = read(key);
    if (!known) return;
    write(key, { ...known, arrived: [...known.arrived, ...files.map((f) => signatureOf([f]))], touchedAt: Date.now() });
  },
  forget: (key) => localStorage.removeItem(key),
};

/** Deliveries the server has certainly swept (it keeps an open one as long as a resumable upload). */
export function pruneExpiredDeliveries(now = Date.now()): void {
  for (const key of Object.keys(localStorage)) {
    if (!key.startsWith(PREFIX)) continue;
    const known = read(key);
    if (!known || now - known.touchedAt > RESUME_MAX_AGE_MS) localStorage.removeItem(key);
  }
}
