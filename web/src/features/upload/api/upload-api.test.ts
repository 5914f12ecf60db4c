import { describe, expect, it } from 'vitest';
import { fakeApi } from '../../../test/fake-api';
import { uploadFiles } from './upload-api';

describe('uploadFiles', () => {
  it('reports total bytes sent over total size, capped at 100', async () => {
    fakeApi({
      'POST /upload-study-petitions-files': (call) => {
        const name = ((call.data as FormData).get('file') as File).name;
        // Browsers count multipart overhead too, so a file can report more than its size.
        const loaded = name === 'big.zip' ? 400 : 150;
        call.config.onUploadProgress?.({ loaded, total: loaded, bytes: loaded, lengthComputable: true });
        return { status: 201, data: { data: [] } };
      },
    });
    const seen: number[] = [];
    await uploadFiles(1, [new File(['x'.repeat(300)], 'big.zip'), new File(['x'.repeat(100)], 'small.dcm')], (p) => seen.push(p));
    expect(seen[0]).toBe(100);
    expect(seen).toContain(100);
    expect(Math.max(...seen)).toBe(100);
  });

  it('lets every upload finish, then reports the first failure', async () => {
    const api = fakeApi({
      'POST /upload-study-petitions-files': (call) =>
        ((call.data as FormData).get('file') as File).name === 'bad.zip' ? { status: 415 } : { status: 201, data: { data: [] } },
    });
    await expect(uploadFiles(1, [new File(['a'], 'bad.zip'), new File(['b'], 'good.zip')], () => undefined)).rejects.toMatchObject({
      response: { status: 415 },
    });
    expect(api.calls).toHaveLength(2);
  });

  it('reports partial progress as a share of the whole selection', async () => {
    fakeApi({
      'POST /upload-study-petitions-files': (call) => {
        call.config.onUploadProgress?.({ loaded: 50, total: 100, bytes: 50, lengthComputable: true });
        return { status: 201, data: { data: [] } };
      },
    });
    const seen: number[] = [];
    await uploadFiles(1, [new File(['x'.repeat(100)], 'a.zip'), new File(['x'.repeat(100)], 'b.zip')], (p) => seen.push(p));
    expect(seen).toEqual([25, 50]);
  });
});
