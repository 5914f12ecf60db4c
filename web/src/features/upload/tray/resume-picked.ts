import { deliveryApi, type DeliveryApi } from '../api/deliveries';
import { createTusTransport, discardResumable, type Transport } from '../api/tus-upload';
import { selectForDeidentification, type SendGroup } from '../deid/deid-selection';
import { deidentifiesHere } from '../deid/use-deidentification';
import { filterFolder, relativePathOf, selectAccepted, type KeptFile } from '../file-filters';
import type { UploadSessions } from './upload-sessions';
import type { UnfinishedUpload } from './unfinished-store';

const defaultTransport = createTusTransport();

/** A picked file is a remembered upload when its path, size and modification time are the same (the tus fingerprint's parts). */
function sameFile(file: File, upload: UnfinishedUpload): boolean {
  return relativePathOf(file) === upload.path && file.size === upload.size && file.lastModified === upload.lastModified;
}

/** An archive opened in the page (a project that de-identifies here) is remembered by its entries, in a folder named after it. */
function openedArchive(file: File, upload: UnfinishedUpload): boolean {
  return upload.folder === file.name && !relativePathOf(file).includes('/');
}

export interface ResumeOptions {
  transport?: Transport;
  deliveries?: DeliveryApi;
}

/**
 * Files or a folder picked again from the tray: those the browser remembers go on in a session of
 * their project, through the same de-identification the dialog uses, and tus resumes each from the
 * server's offset (a folder's delivery from what it already holds). Returns how many files went on.
 */
export async function resumePicked(sessions: UploadSessions, remembered: readonly UnfinishedUpload[], files: readonly File[], folder: boolean, options: ResumeOptions = {}): Promise<number> {
  const plans = new Map<number, { name: string | null; kept: KeptFile[]; folder: string | null }>();
  if (folder) {
    const selection = await filterFolder(files);
    const known = remembered.filter((u) => u.folder === selection.folderName && selection.kept.some((k) => sameFile(k.file, u)));
    // The whole folder again: its delivery's memory is keyed by every kept file, so it finds the same delivery.
    for (const upload of known) plans.set(upload.projectId, { name: upload.projectName, kept: selection.kept, folder: selection.folderName });
  } else {
    for (const upload of remembered) {
      const matched = files.filter((f) => (upload.folder === null && sameFile(f, upload)) || openedArchive(f, upload));
      if (matched.length === 0) continue;
      const plan = plans.get(upload.projectId) ?? { name: upload.projectName, kept: [], folder: null };
      const { kept } = await selectAccepted(matched.filter((f) => !plan.kept.some((k) => k.file === f)));
      plans.set(upload.projectId, { ...plan, kept: [...plan.kept, ...kept] });
    }
  }
  let resumed = 0;
  for (const [projectId, plan] of plans) {
    if (plan.kept.length === 0) continue;
    const session = sessions.create({ projectId, projectName: plan.name, transport: options.transport ?? defaultTransport, deliveries: options.deliveries ?? deliveryApi, discard: discardResumable });
    const deid = await session.whenReady();
    const policy = await deid.policy().catch(() => null);
    const groups: SendGroup[] = policy && deidentifiesHere(policy) ? (await selectForDeidentification(plan.kept, plan.folder)).groups : [{ folder: plan.folder, kept: plan.kept }];
    for (const group of groups) session.queue.add(group.kept, group.folder);
    session.queue.start();
    resumed += plan.kept.length;
  }
  return resumed;
}
