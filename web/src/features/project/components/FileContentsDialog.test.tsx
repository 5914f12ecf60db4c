import type { TFileEntry, TProjectFile } from '@portal/contract';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { fakeApi, type FakeReply } from '../../../test/fake-api';
import { aFile } from '../../../test/fixtures';
import { renderWithProviders } from '../../../test/render';
import { viewportWidth } from '../../../test/viewport';
import FileContentsDialog from './FileContentsDialog';

const dicom = {
  sop_instance_uid: '1.2.3.4.5.1',
  sop_class_uid: '1.2.840.10008.5.1.4.1.1.2',
  study_instance_uid: '1.2.3',
  series_instance_uid: '1.2.3.4',
  modality: 'CT',
  study_date: '20010101',
  study_description: null,
  series_description: 'Axial',
  transfer_syntax_uid: '1.2.840.10008.1.2.1',
  rows: 512,
  columns: 512,
  number_of_frames: null,
  patient_name: 'Doe^Peter',
  patient_id: '98890234',
};

function anEntry(overrides: Partial<TFileEntry>): TFileEntry {
  return { id: 1, path: 'CD/DICOM/IM000001', size: 2048, sha256: 'b'.repeat(64), kind: 'dicom', reason: null, dicom, needs_review_reason: null, scan: { status: 'clean', signature: null }, ...overrides };
}

const entries: TFileEntry[] = [
  anEntry({ id: 1 }),
  anEntry({ id: 2, path: 'CD/DICOM/IM000002', kind: 'dicom', reason: 'no SOP Instance UID', dicom: { ...dicom, sop_instance_uid: null } }),
  anEntry({ id: 3, path: 'CD/DICOMDIR', kind: 'other', dicom: null }),
  anEntry({ id: 4, path: 'CD/link', size: 0, sha256: null, kind: 'skipped', reason: 'symbolic link', dicom: null }),
];

const cd = aFile({
  id: 11,
  file: 'CD',
  kind: 'folder',
  processing: {
    status: 'ready',
    error: null,
    summary: {
      studies: 1,
      series: 1,
      instances: 1,
      other: 1,
      conflicts: 0,
      skipped: 1,
      skipped_reasons: { 'symbolic link': 1 },
      entries: 4,
      duplicates: 0,
      in_project: 0,
      dicomdirs: 1,
      unreadable: 1,
      unreadable_reasons: { 'no SOP Instance UID': 1 },
    },
  },
});

function contentsReply(list: TFileEntry[] = entries): FakeReply {
  return {
    status: 200,
    data: {
      data: {
        entries: list,
        page: { offset: 0, limit: 10, total: list.length },
        studies: [{ study_instance_uid: '1.2.3', study_date: '20010101', study_description: null, series: [{ series_instance_uid: '1.2.3.4', modality: 'CT', series_description: 'Axial', instances: 1 }] }],
      },
    },
  };
}

function open(file: TProjectFile, routes: Record<string, FakeReply | (() => FakeReply | Promise<FakeReply>)> = {}) {
  const api = fakeApi({ 'GET /study-petitions-files/11/contents': contentsReply(), ...routes });
  const view = renderWithProviders(<FileContentsDialog open file={file} onClose={vi.fn()} />);
  return { ...view, api, dialog: screen.getByRole('dialog', { name: `Contents of ${file.file}` }) };
}

describe('FileContentsDialog', () => {
  it('says first why entries were set apart, then offers the filters, then lists the entries', async () => {
    const { dialog } = open(cd);
    const reasons = within(dialog).getByRole('list', { name: 'Why some entries are set apart' });
    expect(within(reasons).getAllByRole('listitem').map((item) => item.textContent)).toEqual([
      '1 skipped: symbolic linkThis entry was left out for safety or over a limit: not stored, so there is nothing to download.',
      '1 unreadable: no SOP Instance UIDKept as sent and downloadable, but not counted as an instance: the DICOM header cannot be used.',
      '1 DICOMDIR: the index of a CD or DVDIt lists the files of the disc and holds no image: kept, and counted among the other files.',
    ]);
    const filters = within(dialog).getByRole('group', { name: 'Show entries of kind' });
    const table = await within(dialog).findByRole('table', { name: 'Entries' });
    // Reasons, then filters, then the list, in reading order.
    expect(reasons.compareDocumentPosition(filters) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(filters.compareDocumentPosition(table) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(within(filters).getAllByRole('button').map((b) => b.textContent)).toEqual(['All', 'DICOM', 'Other', 'Skipped']);
    expect(within(dialog).getByRole('heading', { name: 'Entries (4)' })).toBeInTheDocument();
  });

  it('shows no reasons for an upload of plain instances', async () => {
    const { dialog } = open(aFile({ id: 11, file: 'plain.zip' }));
    await within(dialog).findByRole('table', { name: 'Entries' });
    expect(within(dialog).queryByRole('list', { name: 'Why some entries are set apart' })).not.toBeInTheDocument();
  });

  it('names each entry by what it is and offers a download for every kept one, never for a skipped one', async () => {
    const { dialog } = open(cd);
    const table = await within(dialog).findByRole('table', { name: 'Entries' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((row) => within(row).getAllByRole('cell')[1]?.textContent)).toEqual(['DICOM', 'Unreadable', 'Other', 'Skipped']);
    expect(within(rows[0]!).getByText('CT · Axial')).toBeInTheDocument();
    expect(within(rows[1]!).getByText('no SOP Instance UID')).toBeInTheDocument();
    for (const path of ['CD/DICOM/IM000001', 'CD/DICOM/IM000002', 'CD/DICOMDIR']) {
      expect(within(table).getByRole('button', { name: `Download ${path}` })).toBeEnabled();
    }
    expect(within(table).queryByRole('button', { name: 'Download CD/link' })).not.toBeInTheDocument();
  });

  it("shows an infected file's state and its infected entry's signature, with no download for it", async () => {
    const infected = anEntry({ id: 5, path: 'CD/virus.txt', kind: 'other', dicom: null, scan: { status: 'infected', signature: 'PortalTestSig.UNOFFICIAL' } });
    const { dialog } = open(aFile({ ...cd, scan: { status: 'infected', signature: 'PortalTestSig.UNOFFICIAL' } }), {
      'GET /study-petitions-files/11/contents': contentsReply([anEntry({ id: 1 }), infected]),
    });
    expect(within(dialog).getByLabelText('Virus scan: Infected')).toBeVisible();
    const table = await within(dialog).findByRole('table', { name: 'Entries' });
    const row = within(table).getAllByRole('row')[2]!;
    expect(within(row).getByText('Infected')).toBeVisible();
    expect(within(row).getByText(/found this entry infected with PortalTestSig\.UNOFFICIAL/)).toBeVisible();
    expect(within(table).queryByRole('button', { name: 'Download CD/virus.txt' })).not.toBeInTheDocument();
    expect(within(table).getByRole('button', { name: 'Download CD/DICOM/IM000001' })).toBeEnabled();
  });

  it('asks the server for one kind of entry from the first page', async () => {
    const { dialog, api, user } = open(cd);
    await within(dialog).findByRole('table', { name: 'Entries' });
    await user.click(within(dialog).getByRole('button', { name: 'Other' }));
    await waitFor(() =>
      expect(api.callsTo('GET', '/study-petitions-files/11/contents').at(-1)?.params).toEqual({ offset: 0, limit: 10, kind: 'other' }),
    );
    expect(within(dialog).getByRole('button', { name: 'Other' })).toHaveAttribute('aria-pressed', 'true');
  });

  it('downloads an entry under its own name, showing the progress in the dialog, and says so', async () => {
    const createObjectURL = vi.fn(() => 'blob:entry');
    Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() });
    const saved: string[] = [];
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      saved.push(this.download);
    });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const { dialog, api, user } = open(cd, {
      'GET /study-petitions-files/11/contents/2/download': async () => {
        await held;
        return { status: 200, data: new Blob(['DICM']), headers: { 'content-disposition': `attachment; filename="IM000002"; filename*=UTF-8''IM000002` } };
      },
    });
    await user.click(await within(dialog).findByRole('button', { name: 'Download CD/DICOM/IM000002' }));
    const status = await within(dialog).findByRole('status');
    expect(status).toHaveTextContent('Downloading file... 0% (IM000002)');
    // One download at a time: the others wait.
    expect(within(dialog).getByRole('button', { name: 'Download CD/DICOM/IM000001' })).toBeDisabled();
    // Shown in the dialog it came from: no overlay stacked over it.
    expect(screen.getAllByRole('status')).toHaveLength(1);
    release();
    expect(await screen.findByText('File downloaded successfully')).toBeInTheDocument();
    expect(saved).toEqual(['IM000002']);
    const call = api.callsTo('GET', '/study-petitions-files/11/contents/2/download')[0];
    expect(call?.config.responseType).toBe('blob');
    expect(call?.config.timeout).toBe(0);
    await waitFor(() => expect(within(dialog).queryByRole('status')).not.toBeInTheDocument());
    click.mockRestore();
  });

  it("shows a failed entry download as 'message: details'", async () => {
    const { dialog, user } = open(cd, { 'GET /study-petitions-files/11/contents/1/download': { status: 404, data: { message: 'Entry not found' } } });
    await user.click(await within(dialog).findByRole('button', { name: 'Download CD/DICOM/IM000001' }));
    expect(await screen.findByText('Resource Not Found: The requested file or resource does not exist')).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Download CD/DICOM/IM000001' })).toBeEnabled();
  });

  it('on a phone fills the screen and lists the entries as blocks, downloads included', async () => {
    viewportWidth(390);
    const { dialog } = open(cd);
    const list = await within(dialog).findByRole('list', { name: 'Entries' });
    expect(within(dialog).queryByRole('table', { name: 'Entries' })).not.toBeInTheDocument();
    expect(within(list).getAllByRole('listitem')).toHaveLength(4);
    expect(within(list).getByRole('button', { name: 'Download CD/DICOMDIR' })).toBeInTheDocument();
    expect(dialog.className).toMatch(/FullScreen/);
  });
});
