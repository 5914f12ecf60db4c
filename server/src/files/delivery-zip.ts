// A delivery downloaded as one zip, built while it is sent: nothing is copied or kept. Members are
// stored, not compressed (DICOM barely compresses, and the bytes then leave as they arrived), and
// yazl switches to zip64 by itself where sizes or offsets need it. No Range: the zip exists only as
// it streams (Accept-Ranges: none).
import type { FastifyReply } from 'fastify';
import { ZipFile } from 'yazl';
import type { DeliveryFileRow } from '../db/schema.js';
import type { Storage } from '../storage/storage.js';
import { attachmentHeader } from './download-response.js';

export function sendDeliveryZip(reply: FastifyReply, storage: Storage, name: string, members: readonly DeliveryFileRow[]): FastifyReply {
  const zip = new ZipFile();
  for (const member of members) {
    zip.addReadStreamLazy(member.relative_path, { size: Number(member.size), compress: false, mtime: new Date(member.created_at) }, (done) => {
      storage.get(member.storage_key).then(
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
