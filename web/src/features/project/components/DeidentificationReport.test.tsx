// The de-identification report in the web app (issue 33, item 5): the 'De-identified' badge on each
// row (table and phone cards) of a file that has a report, the report's block in the contents
// dialog, flagged entries first with their reason, and the 'Needs review' filter.
import type { TDeidentificationReport, TFileEntry, TProjectFile } from '@portal/contract';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { fakeApi, type FakeReply } from '../../../test/fake-api';
import { aFile } from '../../../test/fixtures';
import { renderWithProviders } from '../../../test/render';
import { FileCards } from './FileCards';
import FileContentsDialog from './FileContentsDialog';
import { FilesTable } from './FilesTable';
import { useFilesQuery } from './use-files-query';

const REASON = 'This is an ultrasound image and does not say whether text is burned into its pixels; such images often show the patient\'s identity. A person should look at the images.';

function aReport(overrides: Partial<TDeidentificationReport> = {}): TDeidentificationReport {
  return {
    profile: 'basic',
    options: ['retainLongitudinalModifiedDates'],
    edition: 'DICOM PS3.15 2024b',
    deidentified_by: 'both',
    instances: { browser: 2, server: 1, refused: 1 },
    counts: { removed: 120, replaced: 30, shifted: 12, cleaned: 0, private_removed: 4, uids_replaced: 9 },
    needs_review: [{ path: 'CD/US1', sop_instance_uid: '2.25.1', reason: REASON }],
    needs_review_total: 1,
    ...overrides,
  };
}

function anEntry(id: number, path: string, needsReview: string | null = null): TFileEntry {
  return {
    id,
    path,
    size: 2048,
    sha256: 'b'.repeat(64),
    kind: 'dicom',
    reason: null,
    needs_review_reason: needsReview,
    scan: { status: 'not_scanned', signature: null },
    dicom: {
      sop_instance_uid: `2.25.${id}`, sop_class_uid: '1.2.840.10008.5.1.4.1.1.6.1', study_instance_uid: '2.25.100', series_instance_uid: '2.25.200',
      modality: needsReview ? 'US' : 'CT', study_date: '20010101', study_description: null, series_description: 'Axial', transfer_syntax_uid: '1.2.840.10008.1.2.1',
      rows: 512, columns: 512, number_of_frames: null, patient_name: 'P-7CBC0E7A13', patient_id: 'P-7CBC0E7A13',
    },
  };
}

function contentsReply(list: TFileEntry[]): FakeReply {
  return { status: 200, data: { data: { entries: list, page: { offset: 0, limit: 10, total: list.length }, studies: [] } } };
}

const deidentified = aFile({ id: 11, file: 'CD', kind: 'folder', deidentification: aReport() });
const kept = aFile({ id: 12, file: 'kept.zip', deidentification: null });

function TableHarness({ files }: { files: TProjectFile[] }) {
  const query = useFilesQuery();
  const noop = vi.fn();
  return (
    <FilesTable files={files} total={files.length} query={query} selected={new Map()} onSelectionChange={noop} selectingAll={false} onSelectAllMatching={noop}
      onOpen={noop} onDownload={noop} onDelete={noop} onUpload={noop} onUploadAgain={noop} />
  );
}

describe('the De-identified badge', () => {
  it('marks each table row whose file has a report, and no other', () => {
    renderWithProviders(<TableHarness files={[deidentified, kept]} />);
    const row = (name: string) => screen.getByRole('button', { name }).closest('tr') as HTMLElement;
    expect(within(row('CD')).getByText('De-identified')).toBeInTheDocument();
    expect(within(row('CD')).getByLabelText('De-identified: Basic profile, dates shifted. Open the file to see the report.')).toBeInTheDocument();
    expect(within(row('kept.zip')).queryByText('De-identified')).not.toBeInTheDocument();
  });

  it('marks the phone cards the same way', () => {
    renderWithProviders(<FileCards files={[deidentified, kept]} selected={new Map()} onToggle={vi.fn()} onUploadAgain={vi.fn()} onOpen={vi.fn()} onDownload={vi.fn()} onDelete={vi.fn()} />);
    expect(screen.getAllByText('De-identified')).toHaveLength(1);
    const card = screen.getByText('De-identified').closest('li') as HTMLElement;
    expect(within(card).getByRole('button', { name: 'CD' })).toBeInTheDocument();
  });
});

describe('the report in the contents dialog', () => {
  function open(file: TProjectFile, routes: Record<string, FakeReply> = {}) {
    const api = fakeApi({ 'GET /study-petitions-files/11/contents': contentsReply([anEntry(1, 'CD/US1', REASON), anEntry(2, 'CD/CT1'), anEntry(3, 'CD/CT2')]), ...routes });
    const view = renderWithProviders(<FileContentsDialog open file={file} onClose={vi.fn()} />);
    return { ...view, api, dialog: screen.getByRole('dialog', { name: `Contents of ${file.file}` }) };
  }

  it('says what was applied, by whom, what changed and how many instances to review', async () => {
    const { dialog } = open(deidentified);
    const report = within(dialog).getByRole('region', { name: 'De-identification' });
    expect([...report.querySelectorAll('p, .MuiAlert-message')].map((p) => p.textContent)).toEqual([
      'Basic profile, dates shifted (DICOM PS3.15 2024b)',
      'De-identified: 2 instances in the browser, 1 instance by the server',
      'Not kept: 1 instance that could not be read well enough to remove identity',
      'Attributes: 120 removed, 30 replaced, 12 shifted; private attributes removed: 4; UIDs replaced: 9',
      '1 instance to review: identity may be burned into the pixels. It is listed first.',
    ]);
    await within(dialog).findByRole('table', { name: 'Entries' });
  });

  it('says how many of the flagged instances are listed first when the report names only some of them', async () => {
    const many = aReport({ needs_review_total: 1200, needs_review: Array.from({ length: 500 }, (_, i) => ({ path: `CD/US${i}`, sop_instance_uid: `2.25.${i}`, reason: REASON })) });
    const { dialog } = open({ ...deidentified, deidentification: many });
    const report = within(dialog).getByRole('region', { name: 'De-identification' });
    expect(within(report).getByText('1,200 instances to review: identity may be burned into the pixels. The first 500 are listed first.')).toBeInTheDocument();
    await within(dialog).findByRole('table', { name: 'Entries' });
  });

  it('lists the flagged entries first, as the server sends them, marked and with their reason', async () => {
    const { dialog } = open(deidentified);
    const table = await within(dialog).findByRole('table', { name: 'Entries' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((row) => within(row).getAllByRole('cell')[0]?.textContent)).toEqual(['CD/US1', 'CD/CT1', 'CD/CT2']);
    expect(within(rows[0]!).getByText('Needs review')).toBeInTheDocument();
    expect(within(rows[0]!).getByText(REASON)).toBeInTheDocument();
    expect(within(rows[1]!).queryByText('Needs review')).not.toBeInTheDocument();
  });

  it("the 'Needs review' filter asks the server for the flagged entries only, from the first page, and back", async () => {
    const { dialog, api, user } = open(deidentified);
    await within(dialog).findByRole('table', { name: 'Entries' });
    const filter = within(dialog).getByRole('button', { name: 'Needs review' });
    expect(filter).toHaveAttribute('aria-pressed', 'false');
    await user.click(filter);
    await waitFor(() => expect(api.callsTo('GET', '/study-petitions-files/11/contents').at(-1)?.params).toEqual({ offset: 0, limit: 10, review: 1 }));
    expect(filter).toHaveAttribute('aria-pressed', 'true');
    await user.click(filter);
    await waitFor(() => expect(api.callsTo('GET', '/study-petitions-files/11/contents').at(-1)?.params).toEqual({ offset: 0, limit: 10 }));
  });

  it('shows neither the report nor the filter for a file kept as sent, nor the filter when nothing needs review', async () => {
    const plain = open({ ...kept, id: 11 });
    await within(plain.dialog).findByRole('table', { name: 'Entries' });
    expect(within(plain.dialog).queryByRole('region', { name: 'De-identification' })).not.toBeInTheDocument();
    expect(within(plain.dialog).queryByRole('button', { name: 'Needs review' })).not.toBeInTheDocument();
    plain.unmount();
    const clean = open(aFile({ id: 11, file: 'clean', deidentification: aReport({ needs_review: [], needs_review_total: 0, instances: { browser: 0, server: 1, refused: 0 } }) }));
    const report = within(clean.dialog).getByRole('region', { name: 'De-identification' });
    expect(within(report).queryByText(/to review/)).not.toBeInTheDocument();
    expect(within(report).queryByText(/Not kept/)).not.toBeInTheDocument();
    expect(within(clean.dialog).queryByRole('button', { name: 'Needs review' })).not.toBeInTheDocument();
  });
});
