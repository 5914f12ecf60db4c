import { describe, expect, it } from 'vitest';
import { WHOLE_FILES_MEMORY_BYTES, WholeFileMemory } from '../uploads/index.js';
import { WHOLE_FILE_MAX_BYTES } from './tus-direct.js';

describe('the memory held by files sent whole', () => {
  it('takes bodies until the limit, then sends the next the tus way until one is given back', () => {
    const memory = new WholeFileMemory();
    const fit = Math.floor(WHOLE_FILES_MEMORY_BYTES / WHOLE_FILE_MAX_BYTES);
    for (let i = 0; i < fit; i += 1) expect(memory.take(WHOLE_FILE_MAX_BYTES)).toBe(true);
    expect(memory.take(WHOLE_FILE_MAX_BYTES)).toBe(false);
    // A refusal reserves nothing.
    expect(memory.held).toBe(fit * WHOLE_FILE_MAX_BYTES);
    memory.giveBack(WHOLE_FILE_MAX_BYTES);
    expect(memory.take(WHOLE_FILE_MAX_BYTES)).toBe(true);
  });
});
