import {
  DEIDENTIFICATION_EDITION,
  DEIDENTIFICATION_OPTIONS,
  type TDeidentificationOption,
  type TDeidentificationPolicy,
  type TDeidentificationProfile,
} from '@portal/contract';
import type { PolicyColumns } from './deidentification.repository.js';

function storedOptions(text: string): TDeidentificationOption[] {
  let stored: unknown;
  try {
    stored = JSON.parse(text);
  } catch {
    stored = [];
  }
  const listed = Array.isArray(stored) ? stored : [];
  return DEIDENTIFICATION_OPTIONS.filter((option) => listed.includes(option));
}

export function presentPolicy(row: PolicyColumns): TDeidentificationPolicy {
  // Anything but a known profile reads as the stricter one: a policy is never weakened by a bad row.
  const profile: TDeidentificationProfile = row.deid_profile === 'off' ? 'off' : 'basic';
  return {
    profile,
    options: profile === 'off' ? [] : storedOptions(row.deid_options),
    edition: DEIDENTIFICATION_EDITION,
    updated_at: row.deid_updated_at ?? row.created_at,
  };
}
