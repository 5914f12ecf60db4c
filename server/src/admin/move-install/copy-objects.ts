// Copies each stored object through the Storage interface, hashing it on the way, then reads the
// copy back. An object already in the target that reads back right is kept (an earlier run
// copied it); one that does not is removed and copied again.
import { pipeline } from 'node:stream';
import type { Db } from '../../db/database.js';
import type { Storage } from '../../storage/storage.js';
import { checkObject } from './check-object.js';
import { HashingPassThrough, sameHash } from './hash.js';
import { MoveError } from './move-error.js';
import type { Progress } from './progress.js';
import { entryChecks, ownedObjects, type ExpectedObject, type Totals } from './stored-objects.js';

export interface ObjectCounts {
  objects: number;
  bytes: number;
  copied: number;
  alreadyThere: number;
  redone: number;
  entriesChecked: number;
  /** One sentence per object that is not as the database records it. */
  mismatches: string[];
}

export interface CopyOptions {
  /** Stop (as an interruption would) after copying this many objects. */
  maxObjects?: number;
}

/** More mismatches than this stop the copy: the old install is damaged beyond a few files. */
const MAX_MISMATCHES = 100;

export async function copyObjects(
  source: { db: Db; storage: Storage },
  target: Storage,
  totals: Totals,
  progress: Progress,
  opts: CopyOptions,
): Promise<ObjectCounts> {
  const counts: ObjectCounts = { objects: 0, bytes: 0, copied: 0, alreadyThere: 0, redone: 0, entriesChecked: 0, mismatches: [] };
  // The entries inside an object that failed are not checked again: the object's line says it all.
  const failed = new Set<string>();
  const fail = (label: string, reason: string) => {
    counts.mismatches.push(`${label}: ${reason}.`);
    if (counts.mismatches.length >= MAX_MISMATCHES) throw new MoveError(`${MAX_MISMATCHES} objects are not as the database records them; the move stopped there.`);
  };
  for await (const expected of ownedObjects(source.db)) {
    const outcome = await copyOne(source.storage, target, expected, counts);
    if (outcome !== null) {
      failed.add(expected.key);
      fail(expected.label, outcome);
    }
    counts.objects += 1;
    counts.bytes += expected.size;
    progress.objects(counts.objects, totals.objects, counts.bytes, totals.bytes);
    if (opts.maxObjects !== undefined && counts.copied >= opts.maxObjects && counts.objects < totals.objects) {
      throw new MoveError(`Stopped after copying ${counts.copied} objects, as --max-objects asked. Run the same command again to go on: what was copied is kept.`);
    }
  }
  progress.objects(counts.objects, totals.objects, counts.bytes, totals.bytes, true);
  // Entries read in place are checked in the target, where the server will read them.
  for await (const entry of entryChecks(source.db)) {
    if (failed.has(entry.key)) continue;
    const problem = await checkObject(target, entry);
    if (problem !== null) fail(entry.label, problem);
    counts.entriesChecked += 1;
  }
  return counts;
}

/** Answers why the object could not be copied right, or null once the target holds it verified. */
async function copyOne(source: Storage, target: Storage, expected: ExpectedObject, counts: ObjectCounts): Promise<string | null> {
  if ((await target.stat(expected.key)) !== null) {
    if ((await checkObject(target, expected)) === null) {
      counts.alreadyThere += 1;
      return null;
    }
    // Half copied, or damaged after: copied again from the source.
    await target.delete(expected.key);
    counts.redone += 1;
  }
  const stat = await source.stat(expected.key);
  if (stat === null) return 'the old install has no stored object for it';
  if (stat.size !== expected.size) return `its stored object in the old install holds ${stat.size} bytes where the database records ${expected.size}: it was changed or damaged on disk`;
  const hashing = new HashingPassThrough();
  // pipeline: a read error of the source reaches the put, which then leaves nothing behind.
  const body = pipeline(await source.get(expected.key), hashing, () => undefined);
  await target.put(expected.key, body);
  if (!sameHash(hashing.sha256(), expected.sha256)) {
    await target.delete(expected.key);
    return 'its stored bytes in the old install do not match the SHA-256 the database records for it: the file was changed or damaged on disk';
  }
  counts.copied += 1;
  const readBack = await checkObject(target, expected);
  if (readBack !== null) {
    await target.delete(expected.key);
    return `the copy does not read back right (${readBack})`;
  }
  return null;
}
