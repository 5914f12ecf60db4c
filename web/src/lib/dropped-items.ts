// What was dropped on the page or the upload dialog (issue 36 item 2): files, and folders read through
// the browser's entry API with their paths, as Select Folder gives them (`webkitRelativePath`
// 'CD/DICOM/IM000001'), so a dropped folder becomes a delivery exactly as a picked one does.

/** One dropped thing: a folder's or a file's entry, or a file where the browser gives no entry. */
export type DroppedItem = FileSystemEntry | File;

export interface Dropped {
  files: File[];
  /** Each dropped folder's files, their paths starting with the folder's name. */
  folders: { name: string; files: File[] }[];
}

/**
 * The items of a drop, taken at once: the browser empties the DataTransfer when the drop's event
 * handler returns, so this must run before any `await`.
 */
export function itemsOf(transfer: DataTransfer): DroppedItem[] {
  const items: DroppedItem[] = [];
  for (const item of Array.from(transfer.items)) {
    if (item.kind !== 'file') continue;
    const entry = item.webkitGetAsEntry?.() ?? null;
    const file = entry ? null : item.getAsFile();
    if (entry) items.push(entry);
    else if (file) items.push(file);
  }
  return items;
}

/** True when a drag carries files (not text or a link), the only thing the drop zones take. */
export function carriesFiles(transfer: DataTransfer | null): boolean {
  return Boolean(transfer && Array.from(transfer.types).includes('Files'));
}

const isDirectory = (entry: FileSystemEntry): entry is FileSystemDirectoryEntry => entry.isDirectory;
const isFile = (entry: FileSystemEntry): entry is FileSystemFileEntry => entry.isFile;

/** Every entry of a folder: readEntries answers in batches (100 in Chromium) until it answers none. */
async function childrenOf(directory: FileSystemDirectoryEntry): Promise<FileSystemEntry[]> {
  const reader = directory.createReader();
  const all: FileSystemEntry[] = [];
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
    if (batch.length === 0) return all;
    all.push(...batch);
  }
}

/** The file of an entry, carrying its path inside the dropped folder as a picked folder's file does. */
async function fileOf(entry: FileSystemFileEntry, path: string): Promise<File> {
  const file = await new Promise<File>((resolve, reject) => entry.file(resolve, reject));
  Object.defineProperty(file, 'webkitRelativePath', { value: path, configurable: true });
  return file;
}

async function filesUnder(directory: FileSystemDirectoryEntry, path: string): Promise<File[]> {
  const files: File[] = [];
  for (const child of await childrenOf(directory)) {
    const childPath = `${path}/${child.name}`;
    if (isDirectory(child)) files.push(...(await filesUnder(child, childPath)));
    else if (isFile(child)) files.push(await fileOf(child, childPath));
  }
  return files;
}

/** Reads what was dropped: files as they are, folders walked to their last file. */
export async function readDropped(items: readonly DroppedItem[]): Promise<Dropped> {
  const dropped: Dropped = { files: [], folders: [] };
  for (const item of items) {
    if (item instanceof File) dropped.files.push(item);
    else if (isDirectory(item)) dropped.folders.push({ name: item.name, files: await filesUnder(item, item.name) });
    else if (isFile(item)) dropped.files.push(await new Promise<File>((resolve, reject) => item.file(resolve, reject)));
  }
  return dropped;
}
