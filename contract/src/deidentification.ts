// A project's de-identification policy (issue 33): the PS3.15 Annex E profile its uploads are
// de-identified with, and the options it keeps. The engine (@portal/deid) uses the same names; the
// web app reads the policy, and its own company's users the project's key, to de-identify in the
// browser what the server checks again.
import { z } from './zod.js';

/**
 * The edition of PS3.15 whose Table E.1-1 the policy refers to: the engine's (@portal/deid's
 * EDITION; the contract does not import the engine, a server test keeps the two equal).
 */
export const DEIDENTIFICATION_EDITION = 'DICOM PS3.15 2024b';

/** `off` keeps what is sent as it is (the portal's behaviour before issue 33); `basic` is the Basic Application Level Confidentiality Profile. */
export const DEIDENTIFICATION_PROFILES = ['off', 'basic'] as const;
export type TDeidentificationProfile = (typeof DEIDENTIFICATION_PROFILES)[number];

/** The profile's options (PS3.15 Table E.1-1's columns), in the order answers list them. */
export const DEIDENTIFICATION_OPTIONS = [
  'retainLongitudinalModifiedDates',
  'retainPatientCharacteristics',
  'retainDeviceIdentity',
  'retainSafePrivate',
  'cleanDescriptors',
  'retainUIDs',
] as const;
export type TDeidentificationOption = (typeof DEIDENTIFICATION_OPTIONS)[number];

const PROFILE_MESSAGE = `must be ${DEIDENTIFICATION_PROFILES.join(' or ')}`;
const OPTIONS_LIST = DEIDENTIFICATION_OPTIONS.join(', ');

export const ZDeidentificationProfile = z
  .enum(DEIDENTIFICATION_PROFILES, { error: PROFILE_MESSAGE })
  .describe('off: uploads are kept as sent; basic: the Basic Application Level Confidentiality Profile');

export const ZDeidentificationOption = z.enum(DEIDENTIFICATION_OPTIONS, {
  error: (issue) => `${typeof issue.input === 'string' ? `'${issue.input}' is not an option` : 'each option must be text'}; the options are ${OPTIONS_LIST}`,
});

export const ZDeidentificationPolicy = z.object({
  profile: ZDeidentificationProfile,
  options: z.array(ZDeidentificationOption).describe('The options the project keeps, each once, in the order of the standard’s table'),
  edition: z.string().describe('The edition of PS3.15 whose Table E.1-1 the profile and options refer to'),
  updated_at: z.string().describe('When the policy was last set (the project’s creation, if never)'),
});
export type TDeidentificationPolicy = z.infer<typeof ZDeidentificationPolicy>;

export const ZUpdateDeidentificationPolicy = z
  .strictObject({
    profile: ZDeidentificationProfile,
    options: z
      .array(ZDeidentificationOption, { error: `must be a list of options, empty or some of ${OPTIONS_LIST}` })
      .max(DEIDENTIFICATION_OPTIONS.length, { error: 'lists an option more than once' }),
  })
  .superRefine((body, ctx) => {
    const twice = body.options.find((option, i) => body.options.indexOf(option) !== i);
    if (twice !== undefined) ctx.addIssue({ code: 'custom', path: ['options'], message: `lists ${twice} more than once` });
    else if (body.profile === 'off' && body.options.length > 0) {
      ctx.addIssue({ code: 'custom', path: ['options'], message: 'options apply only to the basic profile: send an empty list with profile off' });
    }
  });
export type TUpdateDeidentificationPolicy = z.infer<typeof ZUpdateDeidentificationPolicy>;

export const ZProjectKey = z.object({
  key: z.string().describe('The project’s 32-byte key in base64url: pseudonyms, shifted dates and replaced UIDs are keyed hashes with it'),
});
export type TProjectKey = z.infer<typeof ZProjectKey>;
