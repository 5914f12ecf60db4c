// The job that renders a processed file's series thumbnails (queued on 'file.processed'). A series
// whose image cannot be drawn gets a placeholder with the reason; nothing here fails the upload,
// which is 'ready' before this job is queued.
import { createHash, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { defineJobKind, jobType, type JobKind } from '../jobs/index.js';
import type { Storage } from '../storage/storage.js';
import { Renderer, type Rendered, type RendererOptions } from './renderer.js';
import type { NewThumbnail, SeriesInstance, ThumbnailsRepository } from './thumbnails.repository.js';

const ZThumbnailPayload = z.object({ fileId: z.number().int().positive(), companyId: z.number().int().positive() });
export type TThumbnailPayload = z.infer<typeof ZThumbnailPayload>;

/**
 * Claimed in turns by company. No subject: a deletion's purge waits for live jobs of the file's
 * subject, and must not wait for pictures; a run for a deleted file finds it gone and draws nothing.
 */
export const RENDER_THUMBNAILS = jobType('render-thumbnails', ZThumbnailPayload, () => null, (p) => `companies/${p.companyId}`);

/** Larger instances are not read into memory for a 256 px picture. */
const MAX_INSTANCE_BYTES = 256 * 1024 * 1024;
const TOO_LARGE = 'This image is too large to draw here';
const CONTENT_TYPE = 'image/webp';

export interface ThumbnailJobDeps {
  thumbnails: ThumbnailsRepository;
  storage: Storage;
  renderer: RendererOptions;
  now?: () => Date;
}

/** The middle instance of each series, in path order (InstanceNumber is not recorded with entries). */
export function middleInstances(instances: readonly SeriesInstance[]): SeriesInstance[] {
  const bySeries = new Map<string, SeriesInstance[]>();
  for (const instance of instances) {
    const list = bySeries.get(instance.series_instance_uid) ?? [];
    list.push(instance);
    bySeries.set(instance.series_instance_uid, list);
  }
  return [...bySeries.values()].map((list) => list[Math.floor((list.length - 1) / 2)]!);
}

async function readInstance(storage: Storage, instance: SeriesInstance): Promise<Uint8Array> {
  const range = instance.storage_offset === null ? undefined : { start: instance.storage_offset, end: instance.storage_offset + instance.size - 1 };
  const chunks: Buffer[] = [];
  for await (const chunk of await storage.get(instance.storage_key, range)) chunks.push(chunk as Buffer);
  return new Uint8Array(Buffer.concat(chunks));
}

export function renderThumbnailsJob(deps: ThumbnailJobDeps): JobKind<TThumbnailPayload> {
  return defineJobKind(RENDER_THUMBNAILS, {
    // A placeholder is the outcome of a failure to draw; a failure of the job itself (storage,
    // database) is retried, and after the last attempt the series simply have no thumbnail row.
    maxAttempts: 3,
    concurrency: 1,
    async handle({ fileId }, { signal }) {
      const file = await deps.thumbnails.readyFile(fileId);
      if (!file) return;
      const earlier = await deps.thumbnails.keysOf(file.id);
      const renderer = new Renderer(deps.renderer);
      const rows: NewThumbnail[] = [];
      try {
        for (const instance of middleInstances(await deps.thumbnails.instancesOf(file.id, file.company_id))) {
          signal.throwIfAborted();
          const rendered: Rendered = instance.size > MAX_INSTANCE_BYTES ? { reason: TOO_LARGE } : await renderer.render(await readInstance(deps.storage, instance), signal);
          const base = { study_instance_uid: instance.study_instance_uid, series_instance_uid: instance.series_instance_uid };
          if ('reason' in rendered) {
            rows.push({ ...base, storage_key: null, content_type: null, etag: null, size: null, reason: rendered.reason });
            continue;
          }
          const key = `thumbnails/${String(file.id)}/${randomUUID()}`;
          await deps.storage.putBytes(key, rendered.image, { signal });
          const etag = `"${createHash('sha256').update(rendered.image).digest('base64url').slice(0, 32)}"`;
          rows.push({ ...base, storage_key: key, content_type: CONTENT_TYPE, etag, size: rendered.image.byteLength, reason: null });
        }
      } finally {
        renderer.close();
      }
      await deps.thumbnails.replace(file, rows, (deps.now?.() ?? new Date()).toISOString());
      // A rerun's (the job dying after storing, before its rows) earlier pictures are named by no row now.
      for (const key of earlier) await deps.storage.delete(key).catch(() => undefined);
    },
    async onGiveUp() {
      // Nothing to undo: the upload stays 'ready', its series without thumbnails.
    },
  });
}
