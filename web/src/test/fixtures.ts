import type { TDeidentificationPolicy, TProcessingSummary, TProject, TProjectFile } from '@portal/contract';
import type { SessionUser } from '../lib/storage';

export function aProject(overrides: Partial<TProject> = {}): TProject {
  return {
    id: 1,
    name: 'Brain MRI',
    valid: true,
    status: 'Pendant',
    company_id: 7,
    created_at: '2026-03-01T10:00:00Z',
    updated_at: '2026-03-02T10:00:00Z',
    ...overrides,
  };
}

export function aFile(overrides: Partial<TProjectFile> = {}): TProjectFile {
  return {
    id: 11,
    file: 'scan.zip',
    filesize: 1536,
    studypetitionid: 1,
    created_at: '2026-03-01T10:00:00Z',
    updated_at: '2026-03-01T10:00:00Z',
    sha256: 'a'.repeat(64),
    kind: 'archive',
    duplicate_of: null,
    processing: { status: 'ready', error: null, summary: aSummary({ studies: 1, series: 2, instances: 10 }) },
    deidentification: null,
    scan: { status: 'not_scanned', signature: null },
    review: { state: null, reason: null, replaced_by: null, replaces: null, rules: [] },
    ...overrides,
  };
}

/** A summary that adds up: entries = instances + duplicates + conflicts + other + unreadable + skipped. */
export function aSummary(counts: Partial<TProcessingSummary> = {}): TProcessingSummary {
  const summary = { studies: 0, series: 0, instances: 0, duplicates: 0, conflicts: 0, in_project: 0, other: 0, dicomdirs: 0, unreadable: 0, skipped: 0, ...counts };
  return { ...summary, entries: counts.entries ?? summary.instances + summary.duplicates + summary.conflicts + summary.other + summary.unreadable + summary.skipped };
}

export function aUser(overrides: Partial<SessionUser> = {}): SessionUser {
  return {
    id: 3,
    username: 'ada',
    firstname: 'Ada',
    lastname: 'Lovelace',
    role: 2,
    company_id: 7,
    company: { id: 7, companyname: 'Acme Imaging', created_at: '2026-01-01', updated_at: '2026-01-01', quota_bytes: null, used_bytes: 0 },
    ...overrides,
  };
}

export function aPolicy(overrides: Partial<TDeidentificationPolicy> = {}): TDeidentificationPolicy {
  return { profile: 'basic', options: [], edition: 'DICOM PS3.15 2024b', updated_at: '2026-11-01T10:00:00.000Z', ...overrides };
}
