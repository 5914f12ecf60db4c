// Reading an object back and comparing it with what the database records for it.
import type { Storage } from '../../storage/storage.js';
import { ObjectNotFoundError, InvalidRangeError } from '../../storage/storage-errors.js';
import { hashStream, sameHash } from './hash.js';
import type { EntryCheck, ExpectedObject } from './stored-objects.js';

/** Why an object is not as the database records it, in words; null when it is. */
export async function checkObject(storage: Storage, expected: ExpectedObject | EntryCheck): Promise<string | null> {
  const offset = 'offset' in expected ? expected.offset : 0;
  const inside = 'offset' in expected;
  let stream;
  try {
    if (inside && expected.size === 0) stream = null;
    else stream = await storage.get(expected.key, inside ? { start: offset, end: offset + expected.size - 1 } : undefined);
  } catch (error) {
    if (error instanceof ObjectNotFoundError) return 'its stored object is missing';
    if (error instanceof InvalidRangeError) return 'its stored object is shorter than the database records';
    throw error;
  }
  const got = stream === null ? { sha256: EMPTY_SHA256, size: 0 } : await hashStream(stream);
  if (got.size !== expected.size) return `its stored object holds ${got.size} bytes where the database records ${expected.size}`;
  if (!sameHash(got.sha256, expected.sha256)) return 'its stored bytes do not match the SHA-256 the database records for it';
  return null;
}

const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
