import { apiClient } from '../../../lib/api-client';
import { percentOf } from '../../../lib/progress';

export async function uploadFile(projectId: number, file: File, onProgress: (loaded: number) => void): Promise<void> {
  const form = new FormData();
  // The project id goes first so the server knows the destination before the bytes arrive.
  form.append('studypetitionid', String(projectId));
  form.append('file', file, file.name);
  await apiClient.post('/upload-study-petitions-files', form, {
    // Without this the instance's JSON default would serialise the form; the browser adds the boundary.
    headers: { 'Content-Type': 'multipart/form-data' },
    // Spec §9: uploads have no timeout, whatever their size.
    timeout: 0,
    onUploadProgress: (event) => onProgress(event.loaded),
  });
}

/**
 * Spec §7: every file is sent at once, and progress is the bytes sent over all bytes, capped at 100.
 * All uploads are allowed to finish; the first failure is then reported.
 */
export async function uploadFiles(projectId: number, files: readonly File[], onProgress: (percent: number) => void): Promise<void> {
  const total = files.reduce((sum, f) => sum + f.size, 0);
  const loaded = files.map(() => 0);
  const report = () => onProgress(percentOf(loaded.reduce((a, b) => a + b, 0), total));
  const results = await Promise.allSettled(
    files.map((file, index) =>
      uploadFile(projectId, file, (bytes) => {
        loaded[index] = bytes;
        report();
      }),
    ),
  );
  const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failure) throw failure.reason;
}
