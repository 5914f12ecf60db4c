// Row types as stored. Timestamps are ISO 8601 UTC text and flags are 0/1 integers in both
// SQLite and PostgreSQL, so every query runs unchanged on either engine.
import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

export interface CompanyTable {
  id: Generated<number>;
  companyname: string;
  /** bigint, null: unlimited (migration 020). */
  quota_bytes: number | string | null;
  created_at: string;
  updated_at: string;
}

export interface UserTable {
  id: Generated<number>;
  company_id: number;
  username: string;
  password_hash: string;
  firstname: string;
  lastname: string;
  role: number;
  disabled: number;
  email: string | null;
  created_at: string;
  updated_at: string;
}

export interface SessionTable {
  id: Generated<number>;
  user_id: number;
  token_hash: string;
  created_at: string;
  last_used_at: string;
  expires_at: string;
  revoked_at: string | null;
}

/** One counter of the password throttle (server/src/auth/login-throttle.policy.ts). */
export interface LoginThrottleTable {
  key: string;
  failures: number;
  window_started_at: string;
  last_failure_at: string | null;
  /** An account past its failure threshold takes no attempt before this time. */
  blocked_until: string | null;
}

export interface ProjectTable {
  id: Generated<number>;
  company_id: number;
  name: string;
  valid: number;
  status: string;
  created_by: number | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
  /** The de-identification profile (migration 024): 'off' or 'basic'. */
  deid_profile: Generated<string>;
  /** Its options, a JSON array of the contract's option names. */
  deid_options: Generated<string>;
  /** When the policy was last set; null: never, it holds since the project's creation. */
  deid_updated_at: string | null;
}

/** A project's de-identification key (migration 024), made at first use; only ever sealed (sso/secret-box.ts). */
export interface ProjectKeyTable {
  project_id: number;
  key_sealed: string;
  created_at: string;
}

export interface ProjectFileTable {
  id: Generated<number>;
  project_id: number;
  company_id: number;
  file: string;
  /** bigint: PostgreSQL's driver answers it as a string, SQLite as a number. */
  filesize: number | string;
  sha256: string;
  storage_key: string;
  kind: string;
  created_by: number | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
  processing_status: string;
  processing_error: string | null;
  /** JSON of TProcessingSummary. */
  processing_summary: string | null;
  /** When a deleted file's bytes were removed (migration 021); the row itself stays. */
  purged_at: string | null;
  /** JSON of the server's de-identification outcome (processing/deidentify-outcome.ts; migration 025). */
  deid_outcome: Generated<string | null>;
  /** The review (migration 029, review/): its state, null while processing. */
  review_state: Generated<string | null>;
  /** A rejection's reason: a code of the contract's list, and the reviewer's words. */
  review_reason: Generated<string | null>;
  review_note: Generated<string | null>;
  /** JSON of the rules' outcomes ([{rule, ok, message}]) when processing ended. */
  review_rules: Generated<string | null>;
  reviewed_at: Generated<string | null>;
  reviewed_by: Generated<number | null>;
  /** The rejected file this one answers, and the file that answered this one. */
  replaces: Generated<number | null>;
  replaced_by: Generated<number | null>;
  /** The virus scan (migration 035): 'not_scanned', 'waiting', 'clean' or 'infected'. */
  scan_status: Generated<string>;
  /** The signature clamd named, when infected; or why it was not scanned. */
  scan_signature: Generated<string | null>;
}

/** A project's arrival rules (migration 029): JSON of the contract's TReviewRules. */
export interface ProjectRulesTable {
  project_id: number;
  rules: string;
  updated_at: string;
  updated_by: number | null;
}

export interface PendingUploadTable {
  id: Generated<number>;
  storage_key: string;
  created_at: string;
  lease_until: string;
  /** Whose allowance the upload counts against while it arrives, and how much (migration 020). */
  company_id: number | null;
  reserved_bytes: Generated<number | string>;
}

/** A resumable upload still receiving bytes (migration 007). */
/** Bytes stored of a resumable upload in the shared tus store (migration 017). */
export interface TusOffsetTable {
  upload_id: string;
  /** bigint, as `size`. */
  received: number | string;
}

/** One counted chunk object of a resumable upload in the shared tus store (migration 017). */
export interface TusChunkTable {
  upload_id: string;
  /** bigint, as `size` of an upload. */
  start: number | string;
  size: number | string;
  object_key: string;
}

export interface TusUploadTable {
  id: string;
  user_id: number;
  company_id: number;
  project_id: number;
  file_name: string;
  /** bigint: PostgreSQL's driver answers it as a string, SQLite as a number. */
  size: number | string;
  /** finished: its bytes became the file `file_id` (migration 023); the record stays until it expires. */
  state: 'open' | 'finishing' | 'finished';
  head_checked: number;
  created_at: string;
  expires_at: string;
  /** The delivery this upload is a file of (migration 008), and its path inside it. */
  delivery_id: number | null;
  relative_path: string | null;
  file_id: number | null;
  /** The rejected file this upload replaces once it becomes a file (migration 029). */
  replaces: Generated<number | null>;
}

/** A folder sent as one unit (migration 008). */
export interface DeliveryTable {
  id: Generated<number>;
  project_id: number;
  company_id: number;
  created_by: number;
  name: string;
  state: 'open' | 'completed';
  /** Its row of project_files, once completed. */
  file_id: number | null;
  created_at: string;
  updated_at: string;
  expires_at: string | null;
  /** The rejected file its completion replaces (migration 029). */
  replaces: Generated<number | null>;
}

/** A file of a delivery that arrived whole, alone or in a bundle. */
export interface DeliveryFileTable {
  id: Generated<number>;
  delivery_id: number;
  company_id: number;
  relative_path: string;
  /** bigint: PostgreSQL's driver answers it as a string, SQLite as a number. */
  size: number | string;
  sha256: string;
  /** Shared by the files of one bundle (migration 019). */
  storage_key: string;
  /** Where the file's bytes start in the object: null when the object is the file alone. */
  storage_offset: number | string | null;
  created_at: string;
}

/** A tar bundle of a delivery's files: one stored object, its files rows of delivery_files at their offsets. */
export interface DeliveryBundleTable {
  storage_key: string;
  delivery_id: number;
  company_id: number;
  size: number | string;
  sha256: string;
  created_at: string;
}

export interface FileEntryTable {
  id: Generated<number>;
  file_id: number;
  company_id: number;
  seq: number;
  path: string;
  size: number | string;
  sha256: string | null;
  kind: string;
  reason: string | null;
  storage_key: string | null;
  /** Where the entry's bytes start inside the object at storage_key; null: the whole object. */
  storage_offset: number | string | null;
  sop_instance_uid: string | null;
  sop_class_uid: string | null;
  study_instance_uid: string | null;
  series_instance_uid: string | null;
  modality: string | null;
  study_date: string | null;
  study_description: string | null;
  series_description: string | null;
  transfer_syntax_uid: string | null;
  rows: number | null;
  columns: number | null;
  number_of_frames: number | null;
  /** NumberOfFrames as written when it is not an integer ('1A'); number_of_frames is then null (migration 022). */
  number_of_frames_text: string | null;
  /** PatientName as written (a PN value, 'Doe^John'); the studies view formats it for reading. */
  patient_name: string | null;
  patient_id: string | null;
  /** The fields a DICOMweb search answers (migration 027; null for rows processed before it). */
  accession_number: string | null;
  study_time: string | null;
  study_id: string | null;
  referring_physician_name: string | null;
  patient_birth_date: string | null;
  patient_sex: string | null;
  series_number: number | null;
  instance_number: number | null;
  /** The virus scan (migration 035): null when never scanned, else 'clean', 'infected' or 'not_scanned'. */
  scan_status: Generated<string | null>;
  /** The signature clamd named (infected), or why it could not be scanned (not_scanned). */
  scan_signature: Generated<string | null>;
}

/** A short-lived, single-use download URL (files/download-links.service.ts). */
export interface DownloadLinkTable {
  id: Generated<number>;
  ticket_hash: string;
  user_id: number;
  company_id: number;
  file_id: number;
  entry_id: number | null;
  created_at: string;
  start_by: string;
  used_at: string | null;
  client_hash: string | null;
  dead_after: string;
}

export type JobStatus = 'queued' | 'running' | 'done' | 'failed' | 'cancelled';

export interface JobTable {
  id: Generated<number>;
  name: string;
  /** JSON, checked against the kind's schema when queued and when claimed. */
  payload: string;
  /** What the job works on ('files/12'), so deleting that can cancel it. */
  subject: string | null;
  /** Whose work it is ('companies/3', '' for none): claiming takes turns between these groups. */
  fair_key: Generated<string>;
  status: JobStatus;
  attempts: number;
  run_at: string;
  locked_by: string | null;
  lease_until: string | null;
  /** When a worker last claimed it: the group whose last start is oldest goes next. */
  started_at: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

/** A single-use link to set a new password (migration 011); only the SHA-256 of its secret. */
export interface PasswordLinkTable {
  id: Generated<number>;
  user_id: number;
  company_id: number;
  token_hash: string;
  created_by: number | null;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

/** 'Forgot your password?' as the user's CompanyAdmins see it, until a reset link resolves it. */
export interface PasswordRequestTable {
  id: Generated<number>;
  user_id: number;
  company_id: number;
  address: string;
  created_at: string;
  resolved_at: string | null;
}

/** One row of the audit trail (server/src/audit/): never updated; removed only by prune-audit. */
export interface AuditLogTable {
  seq: number;
  at: string;
  action: string;
  actor_id: number | null;
  actor_name: string | null;
  company_id: number | null;
  ip: string | null;
  user_agent: string | null;
  object_type: string | null;
  object_id: string | null;
  /** JSON object, or null. */
  details: string | null;
  prev_hash: string;
  hash: string;
}

/** The audit chain's single head row (id 1). */
export interface AuditHeadTable {
  id: number;
  last_seq: number;
  last_hash: string;
  anchor_seq: number;
  anchor_hash: string;
}

/** A company's OpenID Connect sign-in (migration 014); the secret only encrypted (sso/secret-box.ts). */
export interface CompanySsoTable {
  company_id: number;
  enabled: number;
  issuer: string;
  client_id: string;
  client_secret_enc: string | null;
  password_login_allowed: number;
  auto_create_users: number;
  updated_at: string;
}

/** A user's authenticator (migration 034): the secret only ever sealed; confirmed_at null while enrolling. */
export interface UserSecondFactorTable {
  user_id: number;
  secret_sealed: string;
  confirmed_at: string | null;
  /** The last 30-second step a code was accepted for: a code of it or an earlier one is refused. */
  last_used_step: number | null;
  created_at: string;
}

export interface SecondFactorRecoveryCodeTable {
  id: Generated<number>;
  user_id: number;
  /** SHA-256 of the normalised code. */
  code_hash: string;
  used_at: string | null;
  created_at: string;
}

/** One sign-in between the right password and its second step (or a mandatory enrolment). */
export interface SecondFactorChallengeTable {
  id: Generated<number>;
  token_hash: string;
  user_id: number;
  purpose: string;
  secret_sealed: string | null;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface CompanyTwoFactorTable {
  company_id: number;
  required: number;
  updated_at: string;
}

/** One sign-in through a provider, single use (sso/sso-logins.repository.ts). */
export interface SsoLoginTable {
  id: Generated<number>;
  state_hash: string;
  company_id: number;
  code_verifier: string;
  nonce: string;
  redirect_uri: string;
  /** started → exchanging (the provider answered) → authenticated (a handoff code is out). */
  stage: 'started' | 'exchanging' | 'authenticated';
  user_id: number | null;
  handoff_hash: string | null;
  created_at: string;
  expires_at: string;
}

/** A user's choice of e-mails (migration 030); no row: none. */
export interface NotificationPreferenceTable {
  user_id: number;
  /** JSON array of the contract's event names. */
  events: string;
  mode: 'immediate' | 'daily';
  all_projects: number;
  updated_at: string;
}

/** A webhook receiver (migration 030): a company's, or every company's when company_id is null. */
export interface WebhookEndpointTable {
  id: Generated<number>;
  company_id: number | null;
  url: string;
  /** JSON array of the contract's event names. */
  events: string;
  /** The Standard Webhooks secret, only ever sealed (sso/secret-box.ts). */
  secret_sealed: string;
  created_by: number | null;
  created_at: string;
}

/** One message to one endpoint, with its attempts (migration 030): the endpoint's log. */
export interface WebhookDeliveryTable {
  id: Generated<number>;
  endpoint_id: number;
  company_id: number | null;
  event: string;
  message_id: string;
  payload: string;
  status: 'pending' | 'retrying' | 'delivered' | 'failed';
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  delivered_at: string | null;
}

/** An e-mail line waiting to be sent, at once or in the next daily digest (migration 030). */
export interface NotificationMailTable {
  id: Generated<number>;
  user_id: number;
  company_id: number;
  event: string;
  file_id: number;
  mode: 'immediate' | 'daily';
  line: string;
  created_at: string;
}

/** A personal API token (issue 37): only its secret's hash is kept (server/src/tokens/). */
export interface ApiTokenTable {
  id: Generated<number>;
  user_id: number;
  company_id: number;
  name: string;
  token_hash: string;
  scope: 'read' | 'upload';
  /** A JSON array of project ids, or null: no limit beyond its owner's. */
  project_ids: string | null;
  created_at: string;
  expires_at: string;
  last_used_at: string | null;
  last_used_ip: string | null;
  revoked_at: string | null;
}

/** An address a token was used from: the first use from a new one is audited. */
export interface ApiTokenAddressTable {
  id: Generated<number>;
  token_id: number;
  address: string;
  first_used_at: string;
}

/** A series' thumbnail, rendered from one upload's middle instance of it (migration 031). */
export interface SeriesThumbnailTable {
  id: Generated<number>;
  file_id: number;
  company_id: number;
  project_id: number;
  study_instance_uid: string;
  series_instance_uid: string;
  sop_instance_uid: string | null;
  status: 'ready' | 'failed';
  /** Why there is no picture, in words (failed only). */
  reason: string | null;
  storage_key: string | null;
  mime: string | null;
  sha256: string | null;
  size: number | null;
  width: number | null;
  height: number | null;
  created_at: string;
}

export interface Database {
  companies: CompanyTable;
  users: UserTable;
  sessions: SessionTable;
  login_throttle: LoginThrottleTable;
  projects: ProjectTable;
  project_keys: ProjectKeyTable;
  project_files: ProjectFileTable;
  project_rules: ProjectRulesTable;
  pending_uploads: PendingUploadTable;
  tus_uploads: TusUploadTable;
  tus_offsets: TusOffsetTable;
  tus_chunks: TusChunkTable;
  deliveries: DeliveryTable;
  delivery_files: DeliveryFileTable;
  delivery_bundles: DeliveryBundleTable;
  file_entries: FileEntryTable;
  jobs: JobTable;
  download_links: DownloadLinkTable;
  password_links: PasswordLinkTable;
  password_requests: PasswordRequestTable;
  audit_log: AuditLogTable;
  audit_head: AuditHeadTable;
  company_sso: CompanySsoTable;
  sso_logins: SsoLoginTable;
  notification_preferences: NotificationPreferenceTable;
  webhook_endpoints: WebhookEndpointTable;
  webhook_deliveries: WebhookDeliveryTable;
  notification_mails: NotificationMailTable;
  api_tokens: ApiTokenTable;
  api_token_addresses: ApiTokenAddressTable;
  user_second_factors: UserSecondFactorTable;
  second_factor_recovery_codes: SecondFactorRecoveryCodeTable;
  second_factor_challenges: SecondFactorChallengeTable;
  company_two_factor: CompanyTwoFactorTable;
  series_thumbnails: SeriesThumbnailTable;
}

export type CompanyRow = Selectable<CompanyTable>;
export type UserRow = Selectable<UserTable>;
export type NewUser = Insertable<UserTable>;
export type UserUpdate = Updateable<UserTable>;
export type SessionRow = Selectable<SessionTable>;
export type ProjectRow = Selectable<ProjectTable>;
export type ProjectFileRow = Selectable<ProjectFileTable>;
export type FileEntryRow = Selectable<FileEntryTable>;
export type TusUploadRow = Selectable<TusUploadTable>;
export type DeliveryRow = Selectable<DeliveryTable>;
export type DeliveryFileRow = Selectable<DeliveryFileTable>;
export type NewFileEntry = Insertable<FileEntryTable>;
export type JobRow = Selectable<JobTable>;
export type DownloadLinkRow = Selectable<DownloadLinkTable>;
export type AuditLogRow = Selectable<AuditLogTable>;
export type PasswordLinkRow = Selectable<PasswordLinkTable>;
export type CompanySsoRow = Selectable<CompanySsoTable>;
export type SsoLoginRow = Selectable<SsoLoginTable>;
export type WebhookEndpointRow = Selectable<WebhookEndpointTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveryTable>;
export type NotificationMailRow = Selectable<NotificationMailTable>;
export type ApiTokenRow = Selectable<ApiTokenTable>;
export type UserSecondFactorRow = Selectable<UserSecondFactorTable>;
export type SecondFactorChallengeRow = Selectable<SecondFactorChallengeTable>;
