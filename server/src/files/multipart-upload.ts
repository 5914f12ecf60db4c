// Reads POST /upload-study-petitions-files: one `file` part and one `studypetitionid` field, in
// either order. The file streams into storage as it arrives; nothing is buffered whole.
import type { FastifyRequest } from 'fastify';
import type { Actor } from '../auth/index.js';
import { AppError, badRequest } from '../errors/app-error.js';
import { parseId } from '../http/params.js';
import type { FilesService, ReceivedUpload } from './files.service.js';

export async function receiveMultipartUpload(
  request: FastifyRequest,
  files: FilesService,
  actor: Actor,
): Promise<{ upload: ReceivedUpload; projectId: number }> {
  if (!request.isMultipart()) throw new AppError(415, 'The upload must be sent as multipart/form-data');
  // The client going away aborts the write, so no partial object is left.
  const aborted = new AbortController();
  const onClose = () => {
    if (!request.raw.complete) aborted.abort(new AppError(400, 'The upload was interrupted before the end of the file'));
  };
  request.raw.once('close', onClose);

  let projectId: number | undefined;
  let upload: ReceivedUpload | undefined;
  try {
    for await (const part of request.parts()) {
      if (part.type === 'field') {
        if (part.fieldname !== 'studypetitionid') throw badRequest(`Unknown field: ${part.fieldname}`);
        if (projectId !== undefined) throw badRequest('Send studypetitionid once');
        projectId = parseId(typeof part.value === 'string' ? part.value.trim() : undefined, 'Project');
        continue;
      }
      if (part.fieldname !== 'file') throw badRequest(`Unknown file field: ${part.fieldname}; send the file as "file"`);
      if (upload) throw badRequest('Send one file per upload');
      upload = await files.receive(actor, {
        fileName: part.filename,
        source: part.file,
        signal: aborted.signal,
        ...(projectId !== undefined ? { projectId } : {}),
      });
    }
  } catch (err) {
    if (upload) await files.discard(upload);
    throw err;
  } finally {
    request.raw.off('close', onClose);
  }
  if (!upload) throw badRequest('file is required');
  if (projectId === undefined) {
    await files.discard(upload);
    throw badRequest('studypetitionid is required');
  }
  return { upload, projectId };
}
