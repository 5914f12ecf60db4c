// What each option of the de-identification policy is called in PS3.15 and what it changes, in one
// line each (docs/deidentification.md has the full table).
import type { TDeidentificationOption } from '@portal/contract';

export const OPTION_TEXTS: Record<TDeidentificationOption, { label: string; explanation: string }> = {
  retainLongitudinalModifiedDates: {
    label: 'Retain Longitudinal Temporal Information with Modified Dates',
    explanation: 'Dates move back by an offset kept per patient, so the time between studies stays true',
  },
  retainPatientCharacteristics: {
    label: 'Retain Patient Characteristics',
    explanation: 'Age, sex, size, weight, smoking and pregnancy status are kept',
  },
  retainDeviceIdentity: {
    label: 'Retain Device Identity',
    explanation: 'Device serial numbers, station names and calibration dates are kept',
  },
  retainSafePrivate: {
    label: 'Retain Safe Private',
    explanation: 'Keeps the private attributes on the safe list; that list is empty, so all are still removed',
  },
  cleanDescriptors: {
    label: 'Clean Descriptors',
    explanation: 'Free-text descriptions are cleaned by removing or replacing them, as a program cannot clean them with certainty',
  },
  retainUIDs: {
    label: 'Retain UIDs',
    explanation: 'Study, series and instance UIDs are kept as sent instead of replaced',
  },
};
