import { describe, expect, it } from 'vitest';
import { ACCEPTED_FILE_TYPES, filterFolder, isFolderUploadable } from './file-filters';

function inFolder(path: string): File {
  const file = new File(['x'], path.split('/').pop() ?? path);
  Object.defineProperty(file, 'webkitRelativePath', { value: path });
  return file;
}

describe('upload file filters', () => {
  it('offers the spec types in the file picker', () => {
    expect(ACCEPTED_FILE_TYPES).toBe('.dcm,.zip,.rar,.7z,.tar,.gz,.bz2');
  });

  it.each(['a.zip', 'a.RAR', 'a.7z', 'a.tar', 'a.tar.gz', 'a.bz2', 'a.xz', 'a.lzma', 'a.dcm', 'a.DICOM'])('keeps %s from a folder', (name) => {
    expect(isFolderUploadable(name)).toBe(true);
  });

  it.each(['notes.txt', 'image.png', 'README', 'zip', 'archive.zip.txt'])('drops %s from a folder', (name) => {
    expect(isFolderUploadable(name)).toBe(false);
  });

  it('reports the folder name, its file count and the files it keeps', () => {
    const files = [inFolder('scans/a.zip'), inFolder('scans/notes.txt'), inFolder('scans/sub/b.dcm')];
    const selection = filterFolder(files);
    expect(selection.folderName).toBe('scans');
    expect(selection.total).toBe(3);
    expect(selection.kept.map((f) => f.name)).toEqual(['a.zip', 'b.dcm']);
  });
});
