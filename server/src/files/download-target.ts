// What a file's or an entry's download sends, whether asked with a session or through a download
// link: a folder row as a zip of its files, anything else as its stored bytes with Range support.
import type { FastifyReply } from 'fastify';
import type { FileEntryRow, ProjectFileRow } from '../db/schema.js';
import type { Storage } from '../storage/storage.js';
import { contentTypeFor } from './content-type.js';
import type { FolderMembers } from './folder-members.js';
import { sendFolderZip } from './folder-zip.js';
import { sendDownload, type DownloadConditions } from './download-response.js';

export async function sendFile(
  reply: FastifyReply,
  from: { storage: Storage; folders: FolderMembers },
  row: ProjectFileRow,
  conditions: DownloadConditions,
): Promise<FastifyReply> {
  // A delivery (kind 'folder') is its files, zipped while they are sent. So is an archive sent whole
  // into a project that removes patient identity (deid_outcome set): the archive as it arrived was
  // deleted, its de-identified DICOM entries are what is kept (processing/process-upload.job.ts).
  // Its row keeps the size and SHA-256 of the archive as sent: they are what the sender can check
  // against their own copy, and the zip, built while it is sent, has no size or hash before.
  if (row.kind === 'folder' || (row.kind === 'archive' && row.deid_outcome !== null)) return sendFolderZip(reply, from.storage, row.file, await from.folders.filesOf(row));
  return sendDownload(reply, {
    storage: from.storage,
    key: row.storage_key,
    facts: { size: Number(row.filesize), sha256: row.sha256, contentType: contentTypeFor(row.file), fileName: row.file },
    conditions,
  });
}

/** An entry kept by processing: read in place from its upload (at `offset`) or from its own object. */
export function sendEntry(
  reply: FastifyReply,
  storage: Storage,
  entry: { row: FileEntryRow; storageKey: string; offset: number },
  conditions: DownloadConditions,
): Promise<FastifyReply> {
  const { row } = entry;
  const name = row.path.split('/').pop() ?? 'entry';
  return sendDownload(reply, {
    storage,
    key: entry.storageKey,
    offset: entry.offset,
    facts: {
      size: Number(row.size),
      sha256: row.sha256!,
      contentType: row.kind === 'dicom' ? 'application/dicom' : contentTypeFor(name),
      fileName: name,
    },
    conditions,
  });
}
