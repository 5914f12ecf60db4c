import { describe, expect, it } from 'vitest';
import { itemsOf, readDropped } from './dropped-items';

/** Entries as the browser's entry API gives them; readEntries answers in batches of `batch`, then none. */
function fileEntry(name: string, content = 'x'): FileSystemFileEntry {
  return { isFile: true, isDirectory: false, name, fullPath: `/${name}`, file: (resolve: FileCallback) => resolve(new File([content], name)) } as unknown as FileSystemFileEntry;
}
function folderEntry(name: string, children: FileSystemEntry[], batch = 2): FileSystemDirectoryEntry {
  return {
    isFile: false,
    isDirectory: true,
    name,
    createReader: () => {
      let at = 0;
      return {
        readEntries: (resolve: (entries: FileSystemEntry[]) => void) => {
          const next = children.slice(at, at + batch);
          at += next.length;
          setTimeout(() => resolve(next), 0);
        },
      };
    },
  } as unknown as FileSystemDirectoryEntry;
}

describe('reading what was dropped', () => {
  it('walks a dropped folder to its last file, each with its path inside the folder as Select Folder gives it', async () => {
    const cd = folderEntry('CD', [fileEntry('DICOMDIR'), folderEntry('DICOM', [fileEntry('IM000001'), fileEntry('IM000002'), fileEntry('IM000003')]), fileEntry('README.txt')]);
    const loose = new File(['y'], 'scan.zip');
    const dropped = await readDropped([cd, loose, fileEntry('knee.dcm')]);
    expect(dropped.files.map((f) => f.name)).toEqual(['scan.zip', 'knee.dcm']);
    expect(dropped.folders).toHaveLength(1);
    expect(dropped.folders[0]!.name).toBe('CD');
    expect(dropped.folders[0]!.files.map((f) => f.webkitRelativePath)).toEqual(['CD/DICOMDIR', 'CD/DICOM/IM000001', 'CD/DICOM/IM000002', 'CD/DICOM/IM000003', 'CD/README.txt']);
  });

  it('takes the items of a drop at once: entries where the browser gives them, else the files, never text', () => {
    const entry = fileEntry('a.dcm');
    const plain = new File(['z'], 'b.dcm');
    const transfer = {
      items: [
        { kind: 'file', webkitGetAsEntry: () => entry, getAsFile: () => null },
        { kind: 'file', webkitGetAsEntry: () => null, getAsFile: () => plain },
        { kind: 'string', webkitGetAsEntry: () => null, getAsFile: () => null },
      ],
    } as unknown as DataTransfer;
    expect(itemsOf(transfer)).toEqual([entry, plain]);
  });
});
