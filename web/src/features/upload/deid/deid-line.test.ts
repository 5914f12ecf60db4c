import { describe, expect, it } from 'vitest';
import { deidentificationLine } from './deid-line';

const key = new Uint8Array(32);
const basic = (options: Parameters<typeof deidentificationLine>[0] extends infer P ? (P extends { options: infer O } ? O : never) : never, withKey = true) =>
  deidentificationLine({ profile: 'basic', options, edition: 'DICOM PS3.15 2025b', key: withKey ? key : null });

describe('the dialog line about de-identification', () => {
  it('says nothing when the project keeps what is sent', () => {
    expect(deidentificationLine({ profile: 'off' })).toBeNull();
  });

  it.each([
    [[], 'Patient identity is removed on this computer before upload: Basic profile'],
    [['retainLongitudinalModifiedDates'], 'Patient identity is removed on this computer before upload: Basic profile, dates shifted'],
    [
      ['retainLongitudinalModifiedDates', 'retainPatientCharacteristics', 'retainDeviceIdentity', 'retainSafePrivate', 'cleanDescriptors', 'retainUIDs'],
      'Patient identity is removed on this computer before upload: Basic profile, dates shifted, patient characteristics kept, device identity kept, safe private attributes kept, descriptors cleaned, UIDs kept',
    ],
    [['cleanDescriptors', 'retainUIDs'], 'Patient identity is removed on this computer before upload: Basic profile, descriptors cleaned, UIDs kept'],
  ] as const)('names the profile and each option in short words: %j', (options, line) => {
    expect(basic([...options])).toBe(line);
  });

  it('says the portal removes it on arrival for a user who does not hold the project key', () => {
    expect(basic(['retainUIDs'], false)).toBe('Patient identity is removed by the portal when the files arrive: Basic profile, UIDs kept');
  });
});
