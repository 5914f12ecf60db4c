// A folder row (a completed delivery) downloaded as one zip, built while it is sent: nothing is copied or kept. Members are
// stored, not compressed (DICOM barely compresses, and the bytes then leave as they arrived), and
// yazl switches to zip64 by itself where sizes or offsets need it. No Range: the zip exists only as
// it streams (Accept-Ranges: none). A file that arrived in a bundle is read as its range of the
// bundle's object.
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { ZipFile } from 'yazl';
import type { Storage } from '../storage/storage.js';
import { attachmentHeader } from './download-response.js';
import { removeDisguisingCharactersFromPath } from './file-name.js';
import type { FolderFile } from './folder-members.js';

export function sendFolderZip(reply: FastifyReply, storage: Storage, name: string, members: readonly FolderFile[]): FastifyReply {
  const zip = new ZipFile();
  for (const member of members) {
    zip.addReadStreamLazy(removeDisguisingCharactersFromPath(member.relative_path), { size: Number(member.size), compress: false, mtime: new Date(member.created_at) }, (done) => {
      readMember(storage, member).then(
        (stream) => done(null, stream),
        (err: unknown) => done(err, undefined as never),
      );
    });
  }
  zip.end();
  const output = zip.outputStream;
  // A member that cannot be read ends the download broken rather than silently short.
  zip.on('error', (err: Error) => {
    reply.log.error({ err }, 'a file of a delivery could not be read for its zip');
    (output as NodeJS.ReadableStream & { destroy(err?: Error): void }).destroy(err);
  });
  return reply
    .header('content-type', 'application/zip')
    .header('content-disposition', attachmentHeader(`${name}.zip`))
    .header('accept-ranges', 'none')
    .send(output);
}

/** A file of a delivery: its own object, or its range of its bundle's. */
function readMember(storage: Storage, member: FolderFile): Promise<Readable> {
  if (member.storage_offset === null) return storage.get(member.storage_key);
  const start = Number(member.storage_offset);
  const size = Number(member.size);
  // An empty file has no range to read.
  if (size === 0) return Promise.resolve(Readable.from([]));
  return storage.get(member.storage_key, { start, end: start + size - 1 });
}
