import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { filterFolder, kindByName, NOT_ACCEPTED, selectAccepted } from './file-filters';

const FIXTURES = path.resolve(__dirname, '../../../../server/test/fixtures/dicom');

function inFolder(folderPath: string, content: BlobPart = 'not imaging data'): File {
  const file = new File([content], folderPath.split('/').pop() ?? folderPath);
  Object.defineProperty(file, 'webkitRelativePath', { value: folderPath });
  return file;
}

const dicom = (name: string) => readFileSync(path.join(FIXTURES, name));

describe('upload file filters', () => {
  it.each([
    ['a.zip', 'archive'],
    ['a.RAR', 'archive'],
    ['a.7z', 'archive'],
    ['a.tar', 'archive'],
    ['a.tar.gz', 'archive'],
    ['a.tgz', 'archive'],
    ['a.bz2', 'archive'],
    ['a.xz', 'archive'],
    ['a.lzma', 'archive'],
    ['a.dcm', 'dicom'],
    ['a.DICOM', 'dicom'],
  ])('takes %s by its name as %s', (name, kind) => {
    expect(kindByName(name)).toBe(kind);
  });

  it.each(['notes.txt', 'image.png', 'README', 'IM000001', '.zip', 'archive.zip.txt'])('cannot tell %s by its name', (name) => {
    expect(kindByName(name)).toBeNull();
  });

  it('reads a CD export by content: DICOMDIR and extensionless images kept, the rest left out with a reason', async () => {
    const folder = await filterFolder([
      inFolder('CD/DICOMDIR', dicom('s40_DICOMDIR')),
      inFolder('CD/DICOM/ST1/IM000002', dicom('s23_RTSTRUCT_no_preamble_no_meta.dcm')),
      inFolder('CD/DICOM/ST1/IM000001', dicom('s15_CR_6154')),
      inFolder('CD/README.txt'),
      inFolder('CD/AUTORUN'),
      inFolder('CD/backup.zip', 'PK'),
      inFolder('CD/empty.dcm', ''),
    ]);
    expect(folder.folderName).toBe('CD');
    expect(folder.total).toBe(7);
    expect(folder.dicomCount).toBe(3);
    expect(folder.archiveCount).toBe(1);
    // Listed by path, numbers in order, whatever order the browser gave.
    expect(folder.kept.map((k) => k.path)).toEqual(['CD/backup.zip', 'CD/DICOM/ST1/IM000001', 'CD/DICOM/ST1/IM000002', 'CD/DICOMDIR']);
    expect(folder.leftOut).toEqual([
      { path: 'CD/AUTORUN', reason: NOT_ACCEPTED },
      { path: 'CD/empty.dcm', reason: 'empty file' },
      { path: 'CD/README.txt', reason: NOT_ACCEPTED },
    ]);
  });

  it('keeps nothing from a folder of documents', async () => {
    const folder = await filterFolder([inFolder('docs/a.txt'), inFolder('docs/b.png')]);
    expect(folder.kept).toEqual([]);
    expect(folder.leftOut).toHaveLength(2);
  });

  it('filters files picked one by one the same way', async () => {
    const picked = await selectAccepted([new File([dicom('s15_CR_6154')], 'IM000001'), new File(['hello'], 'notes.txt')]);
    expect(picked.kept.map((k) => [k.path, k.kind])).toEqual([['IM000001', 'dicom']]);
    expect(picked.leftOut).toEqual([{ path: 'notes.txt', reason: NOT_ACCEPTED }]);
  });
});
