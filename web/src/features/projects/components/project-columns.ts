import type { ProjectSort } from '../api/get-projects';

export interface ProjectColumn {
  label: string;
  sort: ProjectSort | null;
  /** Fixed, so that columns keep their place from page to page whatever the rows hold; the name takes the rest. */
  width?: number;
  align?: 'left' | 'right';
}

const COMPANY: ProjectColumn = { label: 'Company', sort: 'company', width: 170 };

/**
 * The spec's columns (Name, Date Created, Date Updated, Actions) in its order, with the counts and
 * the newest upload between them, and the company for those who see every company's projects.
 */
export function projectColumns(showCompany: boolean): ProjectColumn[] {
  return [
    { label: 'Name', sort: 'name' },
    ...(showCompany ? [COMPANY] : []),
    { label: 'Files', sort: 'files', width: 90, align: 'right' },
    { label: 'Studies', sort: 'studies', width: 100, align: 'right' },
    { label: 'Last upload', sort: 'last_upload_at', width: 160 },
    { label: 'Date Created', sort: 'created_at', width: 170 },
    { label: 'Date Updated', sort: 'updated_at', width: 170 },
    { label: 'Actions', sort: null, width: 120, align: 'right' },
  ];
}
