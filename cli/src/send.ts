// One tus upload of a run (a file alone, a bundle, or a file of a delivery), resumed from the state
// file when an earlier run began it and the portal still has it.
import { sourceSize, type Part } from './byte-source.js';
import type { PathProgress } from './state-file.js';
import { createUpload, sendRest, standingOf } from './tus-client.js';
import type { PortalApi } from './portal-api.js';
import type { Progress } from './progress.js';

export interface SendContext {
  api: PortalApi;
  state: PathProgress;
  progress: Progress;
  chunkBytes: number;
}

export interface SendJob {
  /** Names the send in the state file: its files (path, size, modification time) and how they were made. */
  key: string;
  /** Says what is being sent in messages: 'bundle 2 (250 files)', 'DICOM/IM1'. */
  doing: string;
  parts: readonly Part[];
  metadata: Record<string, string>;
  /** The files' own sizes, which the progress counts (de-identified bytes are scaled to them). */
  originalBytes: number;
}

/** Sends (or finishes) one upload; answers the project file it became, null for a file of a delivery. */
export async function send(context: SendContext, job: SendJob): Promise<number | null> {
  const { api, state, progress } = context;
  const saved = state.entry.sends[job.key];
  if (saved?.done) {
    progress.bytes(job.originalBytes);
    return saved.fileId ?? null;
  }
  const length = sourceSize(job.parts);
  let url = saved ? new URL(saved.url) : null;
  if (url && !(await standingOf(api, url))) url = null;
  const fresh = !url;
  if (!url) {
    const created = await api.withRetries(() => createUpload(api, length, job.metadata, `Sending ${job.doing}`));
    await state.update((entry) => ({ ...entry, sends: { ...entry.sends, [job.key]: { url: created.href } } }));
    url = created;
  } else {
    progress.say(`Resuming ${job.doing}: the portal already has part of it.`);
  }
  const scale = length > 0 ? job.originalBytes / length : 1;
  let counted = 0;
  const fileId = await sendRest(api, url, {
    parts: job.parts,
    chunkBytes: context.chunkBytes,
    doing: `Sending ${job.doing}`,
    onBytes: (bytes) => {
      counted += bytes;
      progress.bytes(bytes * scale);
    },
    onRetry: (error, delay) => progress.say(`${error.message}; trying again in ${delay / 1000} s.`),
    fresh,
  });
  // The progress ends on the files' own sizes even when scaling left a fraction.
  progress.bytes(job.originalBytes - counted * scale);
  await state.update((entry) => ({ ...entry, sends: { ...entry.sends, [job.key]: { url: url.href, done: true, fileId } } }));
  return fileId;
}
