// The job that makes a processed file's series thumbnails (queued by the reaction to
// 'file.processed', services.ts): per series its middle stored instance (by InstanceNumber, else
// as stored) is drawn by the renderer's own process, and the picture stored as an object of the
// portal's storage. The stored instance is what processing kept: in a project that removes
// patient identity, the de-identified one. Whatever the renderer does, the series gets a row: the
// picture, or 'failed' with the reason in words; only the storage failing makes the job retry.
import { createHash } from 'node:crypto';
import type { JobKind } from '../jobs/index.js';
import { defineJobKind } from '../jobs/index.js';
import type { Storage } from '../storage/storage.js';
import { ObjectExistsError } from '../storage/storage-errors.js';
import { RENDER_THUMBNAILS } from './thumbnail-jobs.js';
import type { ThumbnailRenderer } from './thumbnail-renderer.js';
import type { SourceInstance, ThumbnailOutcome, ThumbnailsRepository } from './thumbnails.repository.js';
import { readable, unreadableWords } from './transfer-syntax-words.js';

/** The long side of a thumbnail, in pixels. */
export const THUMBNAIL_MAX_SIDE = 256;
/** A larger middle instance is not read into memory for a thumbnail. */
export const THUMBNAIL_MAX_SOURCE_BYTES = 256 * 1024 * 1024;

const NO_PICTURE = 'This series holds no pictures (its instances carry no pixel data, e.g. a report or a plan).';
const SERVER_PROBLEM = 'The thumbnail could not be made because of a problem on the server; the series itself is stored.';

export interface ThumbnailJobDeps {
  thumbnails: ThumbnailsRepository;
  storage: Storage;
  renderer: ThumbnailRenderer;
  /** Where a renderer's own message is logged (never shown to users). */
  warn?: (message: string) => void;
}

/** Where a file's thumbnail of a series is kept: fixed by both, so a rerun writes the same key. */
export function thumbnailKey(fileId: number, series: string): string {
  return `thumbnails/${fileId}/${createHash('sha256').update(series).digest('hex').slice(0, 32)}`;
}

function bySeries(instances: SourceInstance[]): Map<string, SourceInstance[]> {
  const groups = new Map<string, SourceInstance[]>();
  for (const instance of instances) {
    const group = groups.get(instance.series);
    if (group) group.push(instance);
    else groups.set(instance.series, [instance]);
  }
  return groups;
}

async function readWhole(storage: Storage, instance: SourceInstance): Promise<Buffer> {
  const stream = await storage.get(instance.storageKey, { start: instance.offset, end: instance.offset + instance.size - 1 });
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function putPicture(storage: Storage, key: string, picture: Buffer): Promise<void> {
  try {
    await storage.putBytes(key, picture);
  } catch (error) {
    if (!(error instanceof ObjectExistsError)) throw error;
    // A run that died after storing it and before its row: the picture is made again, the same way.
    await storage.delete(key);
    await storage.putBytes(key, picture);
  }
}

async function renderSeries(deps: ThumbnailJobDeps, fileId: number, instances: SourceInstance[]): Promise<ThumbnailOutcome> {
  const pictures = instances.filter((i) => i.rows !== null && i.rows > 0);
  if (pictures.length === 0) return { status: 'failed', sop: null, reason: NO_PICTURE };
  const middle = pictures[Math.floor((pictures.length - 1) / 2)]!;
  if (!readable(middle.transferSyntax)) return { status: 'failed', sop: middle.sop, reason: unreadableWords(middle.transferSyntax!) };
  if (middle.size > THUMBNAIL_MAX_SOURCE_BYTES) {
    return { status: 'failed', sop: middle.sop, reason: `This series’ middle picture is ${Math.round(middle.size / 1048576)} MB, more than a thumbnail is made from.` };
  }
  const bytes = await readWhole(deps.storage, middle);
  const frames = middle.frames !== null && middle.frames > 1 ? middle.frames : 1;
  const drawn = await deps.renderer.render(bytes, Math.floor(frames / 2), THUMBNAIL_MAX_SIDE);
  if (!drawn.ok) {
    deps.warn?.(`thumbnail of series ${middle.series} (file ${fileId}) failed: ${drawn.detail}`);
    return { status: 'failed', sop: middle.sop, reason: drawn.reason };
  }
  const key = thumbnailKey(fileId, middle.series);
  await putPicture(deps.storage, key, drawn.picture);
  return {
    status: 'ready',
    sop: middle.sop,
    storageKey: key,
    mime: drawn.mime,
    sha256: createHash('sha256').update(drawn.picture).digest('hex'),
    size: drawn.picture.length,
    width: drawn.width,
    height: drawn.height,
  };
}

export function renderThumbnailsJob(deps: ThumbnailJobDeps): JobKind<{ fileId: number; companyId: number }> {
  return defineJobKind(RENDER_THUMBNAILS, {
    handle: async ({ fileId }, { signal }) => {
      const file = await deps.thumbnails.liveFile(fileId);
      if (!file) return;
      const done = await deps.thumbnails.doneSeries(fileId);
      for (const [series, instances] of bySeries(await deps.thumbnails.instancesOf(fileId))) {
        if (done.has(series)) continue;
        signal.throwIfAborted();
        const outcome = await renderSeries(deps, fileId, instances);
        await deps.thumbnails.record(file, { study: instances[0]!.study, series }, outcome);
      }
    },
    // The storage kept failing: the series without a row say so rather than wait for ever.
    onGiveUp: async ({ fileId }) => {
      const file = await deps.thumbnails.liveFile(fileId);
      if (!file) return;
      const done = await deps.thumbnails.doneSeries(fileId);
      for (const [series, instances] of bySeries(await deps.thumbnails.instancesOf(fileId))) {
        if (!done.has(series)) await deps.thumbnails.record(file, { study: instances[0]!.study, series }, { status: 'failed', sop: null, reason: SERVER_PROBLEM });
      }
    },
    // One shared renderer process draws one picture at a time.
    concurrency: 1,
  });
}
