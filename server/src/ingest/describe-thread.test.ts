// A small DICOM upload is hashed and described on a thread of its own: each upload must get its own
// answer, the same as on the calling thread, however many wait at once, for sound, damaged and
// non-DICOM bytes alike.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeBytesHere } from './describe-bytes.js';
import { describeBytesOffThread } from './describe-thread.js';
import { resolveLimits } from './limits.js';
import { FIXTURES } from '../../test/uploads.js';

const { maxDicomHeaderBytes } = resolveLimits({});

function samples(): { name: string; bytes: Uint8Array }[] {
  const dir = path.join(FIXTURES, 'dicom');
  const files = fs.readdirSync(dir).filter((name) => name.startsWith('s'));
  const whole = files.map((name) => ({ name, bytes: new Uint8Array(fs.readFileSync(path.join(dir, name))) }));
  // Cut short inside the header, and not DICOM at all: described as the job describes them.
  const cut = whole.map(({ name, bytes }) => ({ name: `${name}, first 700 bytes`, bytes: bytes.subarray(0, 700) }));
  return [...whole, ...cut, { name: 'text', bytes: new TextEncoder().encode('not a DICOM file at all') }];
}

describe('describing small uploads off the main thread', () => {
  it('answers each of many uploads waiting at once with its own SHA-256 and description, as the calling thread would', async () => {
    const all = samples();
    const answers = await Promise.all(all.map(({ bytes }) => describeBytesOffThread(bytes, maxDicomHeaderBytes)));
    expect(all.length).toBeGreaterThan(30);
    all.forEach(({ name, bytes }, i) => {
      expect(answers[i], name).toEqual(describeBytesHere(bytes, maxDicomHeaderBytes));
    });
    // Some of them are DICOM with their fields read, so the comparison is not of empty answers.
    expect(answers.filter((a) => !a.described.archive && a.described.dicom?.sop_instance_uid).length).toBeGreaterThan(10);
  });
});
