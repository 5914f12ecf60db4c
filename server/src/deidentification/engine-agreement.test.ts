import { DEIDENTIFICATION_EDITION, DEIDENTIFICATION_OPTIONS } from '@portal/contract';
import { EDITION, OPTIONS } from '@portal/deid';
import { describe, expect, it } from 'vitest';

// The API names the policy's edition and options; the engine applies them. A project set through
// the API must mean exactly what the engine does, in the browser and on the server.
describe('the policy API and the de-identification engine', () => {
  it('name the same edition of PS3.15', () => {
    expect(DEIDENTIFICATION_EDITION).toBe(EDITION);
  });

  it('know the same options, in the same order', () => {
    expect([...DEIDENTIFICATION_OPTIONS]).toEqual([...OPTIONS]);
  });
});
