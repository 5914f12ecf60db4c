// `npm run admin -- verify-objects`: reads every stored object of this install back and compares
// it with the size and SHA-256 its database records: after a restore, or a move.
import type { Db } from '../../db/database.js';
import type { Storage } from '../../storage/storage.js';
import { checkObject } from './check-object.js';
import { MoveError } from './move-error.js';
import { counted, formatBytes, Progress, type Print } from './progress.js';
import { entryChecks, ownedObjects, totals } from './stored-objects.js';

export async function verifyObjects(db: Db, storage: Storage, print: Print): Promise<string> {
  const expected = await totals(db);
  print(`Reading back ${counted(expected.objects, 'stored object', 'stored objects')} (${formatBytes(expected.bytes)})…`);
  const progress = new Progress(print);
  const problems: string[] = [];
  // Entries inside an object already named are not named again.
  const failed = new Set<string>();
  let done = 0;
  let bytes = 0;
  for await (const object of ownedObjects(db)) {
    const problem = await checkObject(storage, object);
    if (problem !== null) {
      failed.add(object.key);
      problems.push(`${object.label}: ${problem}.`);
    }
    done += 1;
    bytes += object.size;
    progress.objects(done, expected.objects, bytes, expected.bytes);
  }
  progress.objects(done, expected.objects, bytes, expected.bytes, true);
  for await (const entry of entryChecks(db)) {
    if (failed.has(entry.key)) continue;
    const problem = await checkObject(storage, entry);
    if (problem !== null) problems.push(`${entry.label}: ${problem}.`);
  }
  if (problems.length > 0) {
    throw new MoveError([`${counted(problems.length, 'stored object is not as the database records it', 'stored objects are not as the database records them')}:`, ...problems.map((p) => `  - ${p}`)].join('\n'));
  }
  return `Every stored object checked out: ${counted(expected.objects, 'object', 'objects')} (${formatBytes(expected.bytes)}) and ${counted(expected.entryChecks, 'extracted entry', 'extracted entries')} stored inside them match the sizes and SHA-256 the database records.`;
}
