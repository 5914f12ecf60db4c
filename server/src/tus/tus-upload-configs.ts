// What tus keeps about an upload (its length, metadata and creation time). @tus/file-store writes
// it to a `.json` file beside the bytes by default: one more file created, read and removed per
// upload, a good part of what a folder's small file cost (docs/performance.md, "A folder's small
// files in tar bundles"). The portal records every upload in tus_uploads before tus sees it
// (tus-uploads.service.ts), so that record answers instead: from memory for the uploads this
// process created, from the database for the others (after a restart, or created by another process
// on the same database).
import { BUNDLE_METADATA_KEY, BUNDLE_METADATA_VALUE } from '@portal/contract';
import { Upload, type KvStore } from '@tus/utils';
import type { TusUploadRow } from '../db/schema.js';

/** Uploads remembered at most; beyond that the oldest is read from the database when asked for. */
const MAX_REMEMBERED = 10_000;

interface Remembered {
  size: number | undefined;
  metadata: Record<string, string | null> | undefined;
  creationDate: string | undefined;
}

export class TusUploadConfigs implements KvStore<Upload> {
  readonly #remembered = new Map<string, Remembered>();

  constructor(private readonly find: (id: string) => Promise<TusUploadRow | undefined>) {}

  async get(id: string): Promise<Upload | undefined> {
    const known = this.#remembered.get(id);
    if (known !== undefined) {
      return new Upload({ id, offset: 0, size: known.size, metadata: known.metadata, creation_date: known.creationDate });
    }
    const row = await this.find(id);
    return row && new Upload({ id, offset: 0, size: Number(row.size), metadata: metadataOf(row), creation_date: row.created_at });
  }

  /** tus creating an upload, with the metadata kept (the record was made just before). */
  set(id: string, upload: Upload): Promise<void> {
    if (this.#remembered.size >= MAX_REMEMBERED) this.#remembered.delete(this.#remembered.keys().next().value!);
    this.#remembered.set(id, { size: upload.size, metadata: upload.metadata && { ...upload.metadata }, creationDate: upload.creation_date });
    return Promise.resolve();
  }

  /** The record itself is removed by whoever removes the upload. */
  delete(id: string): Promise<void> {
    this.#remembered.delete(id);
    return Promise.resolve();
  }
}

/** The metadata an upload was created with, as far as its record holds it (the keys the portal keeps). */
function metadataOf(row: TusUploadRow): Record<string, string | null> {
  const metadata: Record<string, string | null> = { filename: row.file_name, studypetitionid: String(row.project_id) };
  if (row.delivery_id !== null) metadata.delivery = String(row.delivery_id);
  if (row.relative_path !== null) metadata.relativePath = row.relative_path;
  // A delivery's upload without a path is a bundle of its files (tus-uploads.service.ts).
  else if (row.delivery_id !== null) metadata[BUNDLE_METADATA_KEY] = BUNDLE_METADATA_VALUE;
  return metadata;
}
