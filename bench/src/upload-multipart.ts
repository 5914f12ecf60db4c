// The spec's multipart upload, POST /upload-study-petitions-files, as an API client sends it: the
// studypetitionid field, then the file streamed from disk in one request.
import { multipartFrame, streamRequest } from './upload-http.js';
import type { InputFile } from './upload-input.js';
import type { Portal, PortalUpload, StoredFile } from './upload-portal.js';

export async function uploadMultipart(
  portal: Portal,
  input: InputFile,
): Promise<PortalUpload> {
  const frame = multipartFrame(
    { studypetitionid: String(portal.projectId) },
    { field: 'file', name: `bench-${input.bytes}.dcm`, contentType: 'application/dicom' },
  );
  const answer = await streamRequest(
    `${portal.base}/upload-study-petitions-files`,
    { 'content-type': frame.contentType, authorization: `Bearer ${portal.token}` },
    { before: frame.before, file: input.path, fileBytes: input.bytes, after: frame.after },
  );
  if (answer.status !== 201) throw new Error(`the upload answered ${answer.status}: ${answer.body.slice(0, 500)}`);
  const file = (JSON.parse(answer.body) as { data: StoredFile[] }).data[0];
  if (file === undefined) throw new Error(`the upload answered no file: ${answer.body.slice(0, 500)}`);
  return { seconds: answer.seconds, clientCpuSeconds: answer.clientCpuSeconds, tailSeconds: answer.tailSeconds, file };
}
