// The API's shapes (DESIGN §4), shared by the server's validation and the web app's types.
import { z } from 'zod';

export const ROLES = { User: 1, CompanyAdmin: 2, SysUser: 3, SysAdmin: 4 } as const;
export const ZRole = z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4)]);
export type TRole = z.infer<typeof ZRole>;

export const ZLoginRequest = z.strictObject({
  username: z.string().min(1).max(255),
  password: z.string().min(1).max(1024),
});
export type TLoginRequest = z.infer<typeof ZLoginRequest>;

export const ZUser = z.object({
  id: z.number().int(),
  username: z.string(),
  firstname: z.string(),
  lastname: z.string(),
  role: ZRole,
  company_id: z.number().int(),
});
export type TUser = z.infer<typeof ZUser>;

export const ZLoginResponse = z.object({ token: z.string(), user: ZUser });
export type TLoginResponse = z.infer<typeof ZLoginResponse>;

export const ZCompany = z.object({
  id: z.number().int(),
  companyname: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  quota_bytes: z.number().int().nullable().describe('The storage allowance in bytes; null: unlimited'),
  used_bytes: z.number().int().describe('Bytes of the company’s live files (deleted files do not count)'),
});
export type TCompany = z.infer<typeof ZCompany>;

export const ZPasswordResetRequest = z.strictObject({
  userid: z.number().int().positive(),
  old_password: z.string().max(1024),
  new_password: z.string().max(1024),
});
export type TPasswordResetRequest = z.infer<typeof ZPasswordResetRequest>;
export const ZPasswordResetResponse = z.object({ data: z.object({ message: z.string() }) });

export const ZProject = z.object({
  id: z.number().int(),
  name: z.string(),
  valid: z.boolean(),
  status: z.string(),
  company_id: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type TProject = z.infer<typeof ZProject>;

export const ZProcessingStatus = z.enum(['pending', 'processing', 'ready', 'failed']);
export type TProcessingStatus = z.infer<typeof ZProcessingStatus>;

export const ZProcessingSummary = z.object({
  studies: z.number().int(),
  series: z.number().int(),
  instances: z.number().int(),
  other: z.number().int(),
  skipped: z.number().int(),
  skipped_reasons: z.record(z.string(), z.number().int()).optional(),
  // Issue 14: every entry counted once, in one of five buckets (in_project is shown apart).
  entries: z.number().int().describe('Every entry seen: instances + duplicates + other + unreadable + skipped'),
  duplicates: z.number().int().describe('DICOM instances whose SOP Instance UID was already counted in the same upload'),
  in_project: z
    .number()
    .int()
    .describe("Of this upload's instances, how many another live upload of the project already held when it was processed (not part of the sum)"),
  dicomdirs: z.number().int().describe('DICOMDIR files (media directories), counted within other'),
  unreadable: z.number().int().describe('DICOM files whose header could not be read or that lack a SOP Instance UID'),
  unreadable_reasons: z.record(z.string(), z.number().int()).optional(),
});
export type TProcessingSummary = z.infer<typeof ZProcessingSummary>;

export const ZProjectFile = z.object({
  id: z.number().int(),
  file: z.string(),
  filesize: z.number().int(),
  studypetitionid: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
  sha256: z.string(),
  kind: z.enum(['dicom', 'archive', 'folder']).describe("'folder': a delivery, a folder sent as one unit (its files are its entries)"),
  duplicate_of: z
    .number()
    .int()
    .nullable()
    .describe('The oldest earlier live file of the same project with the same SHA-256 (accepted, but already there), or null'),
  processing: z.object({
    status: ZProcessingStatus,
    error: z.string().nullable(),
    summary: ZProcessingSummary.nullable(),
  }),
});
export type TProjectFile = z.infer<typeof ZProjectFile>;

export const ZErrorBody = z.object({ message: z.string() });

/** Lists and single objects travel as {data: [...]} (DESIGN §4); login's answer alone is bare. */
export const listResponse = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item) });

/** Spec §5: the characters that count as "special" in a new password. */
export const PASSWORD_SPECIALS = '!@#$%^&*()_+-=[]{};\':"\\|,.<>/?`~';

export interface PasswordChecks {
  length: boolean;
  uppercase: boolean;
  lowercase: boolean;
  number: boolean;
  special: boolean;
}

export function checkPassword(password: string): PasswordChecks {
  return {
    length: password.length >= 8,
    uppercase: /[A-Z]/.test(password),
    lowercase: /[a-z]/.test(password),
    number: /[0-9]/.test(password),
    special: [...password].some((c) => PASSWORD_SPECIALS.includes(c)),
  };
}

export function passwordIsValid(password: string): boolean {
  return Object.values(checkPassword(password)).every(Boolean);
}

/** What processing found in one upload: one row per entry of the archive (or the file itself). */
export const ZEntryKind = z.enum(['dicom', 'other', 'skipped']);
export type TEntryKind = z.infer<typeof ZEntryKind>;

export const ZDicomFields = z.object({
  sop_instance_uid: z.string().nullable(),
  sop_class_uid: z.string().nullable(),
  study_instance_uid: z.string().nullable(),
  series_instance_uid: z.string().nullable(),
  modality: z.string().nullable(),
  study_date: z.string().nullable(),
  study_description: z.string().nullable(),
  series_description: z.string().nullable(),
  transfer_syntax_uid: z.string().nullable(),
  rows: z.number().int().nullable(),
  columns: z.number().int().nullable(),
  /**
   * NumberOfFrames (0028,0008), an IS: a number when it is an integer, else the text as written
   * ('1A'), as dcmtk shows it; null when absent or empty.
   */
  // null made part of the number, not of the union: OpenAPI 3.0 has `nullable` only beside a `type`.
  number_of_frames: z.union([z.number().int().nullable(), z.string()]),
  /** PatientName (0010,0010) as written, a PN value: 'Doe^John', component groups split by '='. */
  patient_name: z.string().nullable(),
  patient_id: z.string().nullable(),
});
export type TDicomFields = z.infer<typeof ZDicomFields>;

export const ZFileEntry = z.object({
  id: z.number().int(),
  path: z.string(),
  size: z.number().int(),
  sha256: z.string().nullable(),
  kind: ZEntryKind,
  /** Why an entry was skipped, or why a DICOM-looking entry could not be read. */
  reason: z.string().nullable(),
  dicom: ZDicomFields.nullable(),
});
export type TFileEntry = z.infer<typeof ZFileEntry>;

export const ZSeriesNode = z.object({
  series_instance_uid: z.string(),
  modality: z.string().nullable(),
  series_description: z.string().nullable(),
  instances: z.number().int(),
});
export const ZStudyNode = z.object({
  study_instance_uid: z.string(),
  study_date: z.string().nullable(),
  study_description: z.string().nullable(),
  series: z.array(ZSeriesNode),
});
export type TStudyNode = z.infer<typeof ZStudyNode>;

/** GET /study-petitions-files/{fileId}/contents?offset=&limit=&kind= */
export const ZFileContents = z.object({
  entries: z.array(ZFileEntry),
  page: z.object({ offset: z.number().int(), limit: z.number().int(), total: z.number().int() }),
  studies: z.array(ZStudyNode),
});
export type TFileContents = z.infer<typeof ZFileContents>;
/** The contents travel wrapped in {data} like every other answer; this is the only shape sent. */
export const ZFileContentsResponse = z.object({ data: ZFileContents });
export type TFileContentsResponse = z.infer<typeof ZFileContentsResponse>;

export const PROJECT_NAME_REQUIRED = 'The name of the study is required';
export const PROJECT_NAME_MAX = 255;
export const PROJECT_NAME_TOO_LONG = `The name of the study must be at most ${PROJECT_NAME_MAX} characters`;

/** The trimmed name, or the message that refuses it (the server answers it with 422). */
export function checkProjectName(name: string): { name: string } | { error: string } {
  const trimmed = name.trim();
  if (!trimmed) return { error: PROJECT_NAME_REQUIRED };
  if ([...trimmed].length > PROJECT_NAME_MAX) return { error: PROJECT_NAME_TOO_LONG };
  return { name: trimmed };
}

/** POST /study-petitions: spec §7 sends {name, valid: true, status: 'Pendant'}. */
export const ZCreateProject = z.strictObject({
  name: z.string().max(10_000),
  valid: z.literal(true).optional(),
  status: z.literal('Pendant').optional(),
});
export type TCreateProject = z.infer<typeof ZCreateProject>;

/** PUT /study-petitions/{id}: the client sends the project back; only its name can change. */
export const ZUpdateProject = z.strictObject({
  name: z.string().max(10_000),
  id: z.number().int().optional(),
  valid: z.boolean().optional(),
  status: z.string().max(50).optional(),
  company_id: z.number().int().optional(),
  created_at: z.string().max(64).optional(),
  updated_at: z.string().max(64).optional(),
});
export type TUpdateProject = z.infer<typeof ZUpdateProject>;

/**
 * Finding things (issue 14, item 6): the files table and the project's studies are searched,
 * sorted, filtered and paged by the server. `page` is 1-based; the answer's `page.total` counts
 * every match, not only this page.
 */
export const LIST_PER_PAGE_DEFAULT = 25;
export const LIST_PER_PAGE_MAX = 500;
export const LIST_PAGE_MAX = 1_000_000;
export const LIST_Q_MAX = 200;

export const ZSortOrder = z.enum(['asc', 'desc']);
export type TSortOrder = z.infer<typeof ZSortOrder>;

export const ZListPage = z.object({ page: z.number().int(), per_page: z.number().int(), total: z.number().int() });
export type TListPage = z.infer<typeof ZListPage>;

/** A query parameter given once (twice, it arrives as an array): refused with `message` otherwise. */
function single(message: string) {
  return z.custom<string>((value) => typeof value === 'string', { error: message });
}

/** A query parameter holding a whole number in [min, max]; anything else is refused with `message`. */
function wholeNumber(min: number, max: number, message: string) {
  return z
    .custom<string>((value) => typeof value === 'string' && /^[0-9]{1,10}$/.test(value), { error: message })
    .transform(Number)
    .pipe(z.number().min(min, { error: message }).max(max, { error: message }))
    .meta({ type: 'integer', minimum: min, maximum: max });
}

function oneOf<const T extends readonly [string, ...string[]]>(values: T, message: string) {
  // Documented as the enum it is (a custom check has no JSON Schema of its own).
  return single(message)
    .pipe(z.enum(values, { error: message }))
    .meta({ type: 'string', enum: [...values] });
}

/** The finding parameters every searched, paged list takes (q, order, page, per_page). */
export const listParams = {
  q: single('must be given once, as text')
    .pipe(z.string().max(LIST_Q_MAX, { error: `must be at most ${LIST_Q_MAX} characters` }))
    .meta({ type: 'string', maxLength: LIST_Q_MAX, description: 'A substring to find; letters without case, % and _ match themselves' })
    .optional(),
  order: oneOf(['asc', 'desc'], 'must be asc or desc').optional(),
  page: wholeNumber(1, LIST_PAGE_MAX, 'must be a whole number from 1').meta({ description: '1-based page number (default 1)' }).optional(),
  per_page: wholeNumber(1, LIST_PER_PAGE_MAX, `must be a whole number from 1 to ${LIST_PER_PAGE_MAX}`)
    .meta({ description: `Rows per page (default ${LIST_PER_PAGE_DEFAULT})` })
    .optional(),
};

/** Columns of the files table the server sorts by; without `sort`, newest first. */
export const FILE_SORT_KEYS = ['file', 'filesize', 'created_at', 'updated_at'] as const;
export const ZFileSort = oneOf(FILE_SORT_KEYS, `must be one of ${FILE_SORT_KEYS.join(', ')}`);
export type TFileSort = z.infer<typeof ZFileSort>;

const STATUSES = ZProcessingStatus.options;
/** One processing status or several, comma-separated ('pending,processing'). */
const STATUS_MESSAGE = `must be one or more of ${STATUSES.join(', ')}, separated by commas`;
export const ZStatusFilter = z
  .custom<string>((value) => typeof value === 'string' && value.split(',').every((s) => (STATUSES as readonly string[]).includes(s.trim())), {
    error: STATUS_MESSAGE,
  })
  .transform((value) => [...new Set(value.split(',').map((s) => s.trim()))] as TProcessingStatus[])
  .meta({ type: 'string', example: 'pending,processing', description: `${STATUSES.join(', ')}, or several separated by commas` });

/**
 * GET /study-petitions-files?study_petition_id=&q=&sort=&order=&status=&page=&per_page=. Without
 * any of the finding parameters the answer is the spec's: every file, newest first, and no `page`.
 * Other parameters are ignored, as they always were here.
 */
export const ZFilesQuery = z.object({
  ...listParams,
  sort: ZFileSort.optional(),
  status: ZStatusFilter.optional(),
});
export type TFilesQuery = z.infer<typeof ZFilesQuery>;

export const ZFilesList = z.object({ data: z.array(ZProjectFile), page: ZListPage.optional() });
export type TFilesList = z.infer<typeof ZFilesList>;

/** The project's studies (issue 14, item 5): every live upload's DICOM instances, each counted once. */
export const STUDY_SORT_KEYS = ['study_date', 'study_description', 'patient_name', 'instances'] as const;
export const ZStudySort = oneOf(STUDY_SORT_KEYS, `must be one of ${STUDY_SORT_KEYS.join(', ')}`);
export type TStudySort = z.infer<typeof ZStudySort>;

/** GET /study-petitions/{id}/studies?q=&sort=&order=&page=&per_page= */
export const ZStudiesQuery = z.strictObject({ ...listParams, sort: ZStudySort.optional() });
export type TStudiesQuery = z.infer<typeof ZStudiesQuery>;

export const ZProjectStudySeries = z.object({
  series_instance_uid: z.string(),
  modality: z.string().nullable(),
  series_description: z.string().nullable(),
  instances: z.number().int(),
});

export const ZProjectStudy = z.object({
  study_instance_uid: z.string(),
  /** PatientName formatted for reading: 'Doe, John' from 'Doe^John' (docs/api.md). */
  patient_name: z.string().nullable(),
  patient_id: z.string().nullable(),
  /** As stored, YYYYMMDD. */
  study_date: z.string().nullable(),
  study_description: z.string().nullable(),
  modalities: z.array(z.string()),
  series: z.array(ZProjectStudySeries),
  /** Distinct SOP Instance UIDs: an instance found in two uploads counts once. */
  instances: z.number().int(),
  /** The live uploads holding instances of the study. */
  sources: z.array(z.object({ file_id: z.number().int(), file: z.string() })),
});
export type TProjectStudy = z.infer<typeof ZProjectStudy>;

export const ZProjectStudies = z.object({ data: z.array(ZProjectStudy), page: ZListPage });
export type TProjectStudies = z.infer<typeof ZProjectStudies>;
/** POST /deliveries: a folder sent as one unit, filled by tus uploads naming it, then completed. */
export const ZCreateDelivery = z.strictObject({
  studypetitionid: z.number().int(),
  name: z.string().max(10_000),
});
export type TCreateDelivery = z.infer<typeof ZCreateDelivery>;

export const ZDeliveryStatus = z.enum(['open', 'completed']);

export const ZDelivery = z.object({
  id: z.number().int(),
  name: z.string(),
  status: ZDeliveryStatus,
  studypetitionid: z.number().int(),
  files: z.number().int().describe('Files of the delivery that arrived whole'),
  bytes: z.number().int().describe('Their sizes added up'),
  file_id: z.number().int().nullable().describe('Once completed: its row in GET /study-petitions-files'),
  expires_at: z.string().nullable().describe('While open: when it is removed, with everything in it, unless completed'),
  created_at: z.string(),
  updated_at: z.string(),
});
export type TDelivery = z.infer<typeof ZDelivery>;

/** POST /download-links: a short-lived, single-use URL for the browser's own download manager. */
export const ZCreateDownloadLink = z.strictObject({
  file_id: z.number().int().min(1).max(2_147_483_647),
  entry_id: z.number().int().min(1).max(2_147_483_647).optional().describe('One entry of the file’s contents instead of the file'),
});
export type TCreateDownloadLink = z.infer<typeof ZCreateDownloadLink>;

export const ZDownloadLink = z.object({
  url: z.string().describe('Absolute path on this host; GET it without an Authorization header'),
  expires_at: z.string().describe('The download must start before this'),
});
export type TDownloadLink = z.infer<typeof ZDownloadLink>;

export const ZDownloadSettings = z.object({
  in_page_max_bytes: z.number().int().describe('Files up to this size are read by the page (progress shown); larger ones, and folders, go through a download link'),
});
export type TDownloadSettings = z.infer<typeof ZDownloadSettings>;

/** GET /upload-settings: how the web app cuts a resumable (tus) upload into requests. */
export const ZUploadSettings = z.object({
  chunk_bytes: z.number().int().describe('Send a tus upload in PATCH requests of this many bytes (UPLOAD_CHUNK_BYTES); the server takes any size'),
});
export type TUploadSettings = z.infer<typeof ZUploadSettings>;
/*
 * Administration (issue 15): companies and users managed over the API by SysAdmin (everything) and
 * CompanyAdmin (their own company's users, roles 1–2), password-reset links and requests, and the
 * audit trail. Every list is {data, page}.
 */
const trimmedName = (what: string) => z.string().trim().min(1, { error: `${what} is required` }).max(255, { error: `${what} must be at most 255 characters` });

export const ZCreateCompany = z.strictObject({ companyname: trimmedName('The company name') });
export type TCreateCompany = z.infer<typeof ZCreateCompany>;
/** PUT /admin/companies/{id}: a new name, a new allowance (null: unlimited), or both. */
export const ZUpdateCompany = z
  .strictObject({
    companyname: trimmedName('The company name').optional(),
    quota_bytes: z
      .number({ error: 'The storage allowance must be a number of bytes, or null for unlimited' })
      .int({ error: 'The storage allowance must be a whole number of bytes' })
      .min(0, { error: 'The storage allowance cannot be negative' })
      .max(Number.MAX_SAFE_INTEGER, { error: 'The storage allowance is too large' })
      .nullable()
      .optional(),
  })
  .refine((b) => b.companyname !== undefined || b.quota_bytes !== undefined, { error: 'Send companyname, quota_bytes or both' });
export type TUpdateCompany = z.infer<typeof ZUpdateCompany>;
export const ZCompaniesQuery = z.object(listParams);
export const ZCompaniesList = z.object({ data: z.array(ZCompany), page: ZListPage });

export const ZAdminUser = ZUser.extend({
  email: z.string().nullable(),
  disabled: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type TAdminUser = z.infer<typeof ZAdminUser>;

const email = z.email({ error: 'must be an e-mail address' }).max(255);

export const ZCreateUser = z.strictObject({
  company_id: z.number().int().positive().optional().describe('SysAdmin only; a CompanyAdmin creates users of their own company'),
  username: z.string().regex(/^[\p{L}\p{N}._@+-]{1,255}$/u, { error: 'may hold letters, digits and . _ @ + - only (at most 255)' }),
  firstname: trimmedName('The first name'),
  lastname: trimmedName('The last name'),
  role: ZRole,
  email: email.nullable().optional(),
  password: z.string().max(1024).optional().describe('Optional: without one, create a reset link for the user to choose theirs'),
});
export type TCreateUser = z.infer<typeof ZCreateUser>;

export const ZUpdateUser = z.strictObject({
  firstname: trimmedName('The first name').optional(),
  lastname: trimmedName('The last name').optional(),
  role: ZRole.optional(),
  email: email.nullable().optional(),
  disabled: z.boolean().optional().describe('true signs the user out everywhere and refuses their sign-in'),
});
export type TUpdateUser = z.infer<typeof ZUpdateUser>;

/** GET /admin/users; the server adds `company_id` (SysAdmin) with its id rules. */
export const ZUsersQuery = z.object(listParams);
export const ZUsersList = z.object({ data: z.array(ZAdminUser), page: ZListPage });

export const ZResetLink = z.object({
  reset_url: z.string().describe('Shown once: the link holds the only copy of its secret'),
  expires_at: z.string(),
});
export const ZResetLinkResponse = listResponse(ZResetLink);

/** POST /password/set: the secret of a reset link and the new password (spec §5 rules). */
export const ZPasswordSetRequest = z.strictObject({ token: z.string().max(200), new_password: z.string().max(1024) });
export type TPasswordSetRequest = z.infer<typeof ZPasswordSetRequest>;
/** POST /password/forgot: answered the same whatever the username. */
export const ZPasswordForgotRequest = z.strictObject({ username: z.string().max(255) });
export const ZMessageResponse = z.object({ data: z.object({ message: z.string() }) });
export const FORGOT_PASSWORD_MESSAGE = 'If the account exists, your administrator has been notified';

export const ZPasswordRequest = z.object({
  id: z.number().int(),
  user_id: z.number().int(),
  username: z.string(),
  firstname: z.string(),
  lastname: z.string(),
  company_id: z.number().int(),
  created_at: z.string(),
  resolved_at: z.string().nullable(),
});
export const ZPasswordRequestsQuery = z.object({ ...listParams, status: oneOf(['open', 'resolved', 'all'], 'must be open, resolved or all').optional() });
export const ZPasswordRequestsList = z.object({ data: z.array(ZPasswordRequest), page: ZListPage });

export const ZAuditEntry = z.object({
  seq: z.number().int(),
  at: z.string(),
  action: z.string(),
  actor_id: z.number().int().nullable(),
  actor_name: z.string().nullable(),
  company_id: z.number().int().nullable(),
  ip: z.string().nullable(),
  user_agent: z.string().nullable(),
  object_type: z.string().nullable(),
  object_id: z.string().nullable(),
  details: z.record(z.string(), z.unknown()).nullable(),
  hash: z.string(),
});
export type TAuditEntry = z.infer<typeof ZAuditEntry>;

const instant = single('must be given once, as a date or time')
  .pipe(z.string().refine((v) => !Number.isNaN(Date.parse(v)), { error: 'must be a date (2026-01-31) or an ISO 8601 time' }))
  .meta({ type: 'string', format: 'date-time' });

export const ZAuditQuery = z.object({
  page: listParams.page,
  per_page: listParams.per_page,
  order: listParams.order,
  from: instant.optional().describe('At or after this time'),
  to: instant.optional().describe('Before this time'),
  actor: single('must be given once').pipe(z.string().max(255)).meta({ type: 'string', description: 'A user id or username' }).optional(),
  action: single('must be given once').pipe(z.string().max(64)).meta({ type: 'string', description: 'An action (login.failure), or a prefix ending in a dot (login.)' }).optional(),
  object: single('must be given once').pipe(z.string().max(300)).meta({ type: 'string', description: 'An object type (file) or type/id (file/12)' }).optional(),
  format: oneOf(['json', 'csv'], 'must be json or csv').optional(),
});
export type TAuditQuery = z.infer<typeof ZAuditQuery>;
export const ZAuditList = z.object({ data: z.array(ZAuditEntry), page: ZListPage });
export * from './sso.js';
export * from './delivery-bundle.js';
export * from './deidentification.js';
