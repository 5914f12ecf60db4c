import type { TProjectFile } from '@portal/contract';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { UNREADABLE_ANSWER } from '../../../lib/api-answer';
import { fakeApi, type FakeReply } from '../../../test/fake-api';
import { answerFiles, filesRoutes } from '../../../test/fake-files';
import { aFile, aProject, aSummary } from '../../../test/fixtures';
import { renderAt } from '../../../test/render';
import ProjectDetailPage from './ProjectDetailPage';

const project = aProject({ id: 1, name: 'Brain MRI' });

function serve(files: TProjectFile[], extra: Record<string, FakeReply | (() => FakeReply)> = {}) {
  const api = fakeApi({
    'GET /study-petitions/1': { status: 200, data: { data: [project] } },
    ...filesRoutes(files),
    ...extra,
  });
  const view = renderAt([{ path: '/study/:id', element: <ProjectDetailPage /> }, { path: '/home', element: <p>home</p> }], '/study/1');
  return { ...view, api };
}

const files = [
  aFile({ id: 11, file: 'a.zip', filesize: 1536 }),
  aFile({ id: 12, file: 'b.dcm', filesize: 2 * 1024 * 1024, kind: 'dicom' }),
  aFile({ id: 13, file: 'c.zip', filesize: 10 }),
];

describe('ProjectDetailPage', () => {
  it('shows the breadcrumb, the banner and the files with their sizes', async () => {
    const { api } = serve(files);
    expect(await screen.findByRole('heading', { name: 'Brain MRI' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Projects' })).toHaveAttribute('href', '/home');
    expect(screen.getByText('3 files found')).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Project Files' })).toBeInTheDocument();
    expect(screen.getByText('1.50 KB')).toBeInTheDocument();
    expect(screen.getByText('2.00 MB')).toBeInTheDocument();
    expect(screen.getByText('10.00 Bytes')).toBeInTheDocument();
    expect(api.callsTo('GET', '/study-petitions-files')[0]?.params).toEqual({ study_petition_id: 1, page: 1, per_page: 5 });
  });

  it('shows the empty state when the project has no files', async () => {
    serve([]);
    expect(await screen.findByText('No files found')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Upload Files' })).toBeInTheDocument();
    expect(screen.getByText('0 files found')).toBeInTheDocument();
  });

  it('counts the selection and selects all at once', async () => {
    const { user } = serve(files);
    await user.click(await screen.findByRole('checkbox', { name: 'Select a.zip' }));
    expect(screen.getByText('(1 selected)')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Delete Selected (1)' })).toBeEnabled();
    await user.click(screen.getByRole('checkbox', { name: 'Select all files' }));
    expect(screen.getByText('(3 selected)')).toBeInTheDocument();
    await user.click(screen.getByRole('checkbox', { name: 'Select all files' }));
    expect(screen.getByRole('button', { name: 'Delete Selected (0)' })).toBeDisabled();
  });

  it('deletes one file after confirmation', async () => {
    const { user, api } = serve(files);
    await user.click(await screen.findByRole('button', { name: 'Delete b.dcm' }));
    const dialog = screen.getByRole('dialog', { name: 'Confirm Delete' });
    expect(within(dialog).getByText('Are you sure you want to delete this file?')).toBeInTheDocument();
    expect(within(dialog).getByText('b.dcm')).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('File deleted successfully')).toBeInTheDocument();
    expect(api.callsTo('PUT', '/study-petitions-files-delete/12')).toHaveLength(1);
    expect(await screen.findByText('2 files found')).toBeInTheDocument();
  });

  it('bulk deletes one call per file, one after the other', async () => {
    const order: string[] = [];
    let inFlight = 0;
    const slowDelete = (id: number) => async (): Promise<FakeReply> => {
      inFlight += 1;
      order.push(`start ${id}`);
      expect(inFlight).toBe(1);
      await new Promise((r) => setTimeout(r, 20));
      inFlight -= 1;
      order.push(`end ${id}`);
      return { status: 200, data: { data: [] } };
    };
    const { user } = serve(files, {
      'PUT /study-petitions-files-delete/11': slowDelete(11) as never,
      'PUT /study-petitions-files-delete/13': slowDelete(13) as never,
    });
    await user.click(await screen.findByRole('checkbox', { name: 'Select a.zip' }));
    await user.click(screen.getByRole('checkbox', { name: 'Select c.zip' }));
    await user.click(screen.getByRole('button', { name: 'Delete Selected (2)' }));
    const dialog = screen.getByRole('dialog', { name: 'Confirm Bulk Delete' });
    expect(
      within(dialog).getByText('Are you sure you want to delete 2 selected file(s)? This action cannot be undone.'),
    ).toBeInTheDocument();
    expect(within(within(dialog).getByRole('list', { name: 'Files to delete' })).getAllByRole('listitem').map((li) => li.textContent)).toEqual(['a.zip', 'c.zip']);
    await user.click(within(dialog).getByRole('button', { name: 'Delete 2 Files' }));
    expect(await screen.findByText('2 files deleted successfully')).toBeInTheDocument();
    expect(order).toEqual(['start 11', 'end 11', 'start 13', 'end 13']);
  });

  it('shows processing status: counts when ready, the reason when failed', async () => {
    serve([
      aFile({ id: 11, file: 'a.zip' }),
      aFile({ id: 12, file: 'bad.zip', processing: { status: 'failed', error: 'Archive is encrypted', summary: null } }),
    ]);
    expect(await screen.findByText('10 files: 10 instances')).toBeInTheDocument();
    expect(screen.getByText('Ready')).toBeInTheDocument();
    expect(screen.getByText('Failed')).toBeInTheDocument();
    expect(screen.getByText('The upload could not be processed: Archive is encrypted')).toBeInTheDocument();
  });

  it('refreshes the list while a file is still being processed', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      let status: 'pending' | 'ready' = 'pending';
      const api = fakeApi({
        'GET /study-petitions/1': { status: 200, data: { data: [project] } },
        'GET /study-petitions-files': (call) =>
          answerFiles([aFile({ processing: { status, error: null, summary: status === 'ready' ? aSummary({ studies: 1, series: 1, instances: 3 }) : null } })], call),
      });
      renderAt([{ path: '/study/:id', element: <ProjectDetailPage /> }], '/study/1');
      expect(await screen.findByText('Pending')).toBeInTheDocument();
      status = 'ready';
      await vi.advanceTimersByTimeAsync(3100);
      expect(await screen.findByText('3 files: 3 instances')).toBeInTheDocument();
      const polls = api.callsTo('GET', '/study-petitions-files').length;
      await vi.advanceTimersByTimeAsync(10_000);
      expect(api.callsTo('GET', '/study-petitions-files')).toHaveLength(polls);
    } finally {
      vi.useRealTimers();
    }
  });

  it('downloads a file and saves it under its name', async () => {
    const createObjectURL = vi.fn(() => 'blob:x');
    Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() });
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      expect(this.download).toBe('a.zip');
    });
    const { user, api } = serve(files, {
      'GET /download-study-petitions-files/11': { status: 200, data: new Blob(['bytes']) },
    });
    await user.click(await screen.findByRole('button', { name: 'Download a.zip' }));
    expect(await screen.findByText('File downloaded successfully')).toBeInTheDocument();
    expect(click).toHaveBeenCalledOnce();
    const call = api.callsTo('GET', '/download-study-petitions-files/11')[0];
    expect(call?.config.responseType).toBe('blob');
    expect(call?.config.timeout).toBe(0);
    click.mockRestore();
  });

  it("shows a failed download as 'message: details'", async () => {
    const { user } = serve(files, { 'GET /download-study-petitions-files/11': { status: 404 } });
    await user.click(await screen.findByRole('button', { name: 'Download a.zip' }));
    expect(await screen.findByText('Resource Not Found: The requested file or resource does not exist')).toBeInTheDocument();
  });

  it("hands a file larger than the server's in-page size to the browser's downloads", async () => {
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      expect(this.getAttribute('href')).toBe('/api/v1/dl/ticket');
    });
    const { user, api } = serve(files, {
      'GET /download-links/settings': { status: 200, data: { data: [{ in_page_max_bytes: 1024 * 1024 }] } },
      'POST /download-links': { status: 201, data: { data: [{ url: '/api/v1/dl/ticket', expires_at: '2026-01-01T00:00:00Z' }] } },
    });
    await user.click(await screen.findByRole('button', { name: 'Download b.dcm' }));
    expect(await screen.findByText("Download started: your browser's downloads show its progress")).toBeInTheDocument();
    expect(click).toHaveBeenCalledOnce();
    expect(api.callsTo('POST', '/download-links').map((c) => c.data)).toEqual([{ file_id: 12 }]);
    expect(api.callsTo('GET', '/download-study-petitions-files/12')).toHaveLength(0);
    click.mockRestore();
  });

  it('opens the contents of an upload from its row', async () => {
    const { user, api } = serve(files, {
      'GET /study-petitions-files/11/contents': {
        status: 200,
        data: {
          data: {
            entries: [
              { id: 1, path: 'scan/1.dcm', size: 100, sha256: null, kind: 'dicom', reason: null, dicom: null, needs_review_reason: null, scan: { status: 'clean', signature: null } },
              { id: 2, path: '../evil', size: 0, sha256: null, kind: 'skipped', reason: 'path traversal', dicom: null, needs_review_reason: null, scan: { status: 'clean', signature: null } },
            ],
            page: { offset: 0, limit: 10, total: 2 },
            studies: [{ study_instance_uid: '1.2.3', study_date: '20240101', study_description: 'Head', series: [{ series_instance_uid: '1.2.3.4', modality: 'MR', series_description: 'T1', instances: 10 }] }],
          },
        },
      },
    });
    await user.click(await screen.findByRole('button', { name: 'View contents of a.zip' }));
    // The dialog is a lazily loaded module: its first load in a busy test worker can take seconds.
    const dialog = await screen.findByRole('dialog', { name: /Contents of a.zip/ }, { timeout: 5000 });
    expect(await within(dialog).findByText('Head · 2024-01-01')).toBeInTheDocument();
    expect(within(dialog).getByText('MR · T1')).toBeInTheDocument();
    expect(within(dialog).getByText('10 instances')).toBeInTheDocument();
    expect(within(dialog).getByText('path traversal')).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Skipped' }));
    await waitFor(() =>
      expect(api.callsTo('GET', '/study-petitions-files/11/contents').map((c) => c.params)).toContainEqual({ offset: 0, limit: 10, kind: 'skipped' }),
    );
  });
});

describe('ProjectDetailPage for a project that cannot be read', () => {
  it('says in words that files of another shape cannot be read, instead of failing on them', async () => {
    const { processing: _missing, ...withoutProcessing } = aFile({ id: 11, file: 'a.zip' });
    fakeApi({
      'GET /study-petitions/1': { status: 200, data: { data: [project] } },
      'GET /study-petitions-files': { status: 200, data: { data: [withoutProcessing], page: { page: 1, per_page: 5, total: 1 } } },
    });
    renderAt([{ path: '/study/:id', element: <ProjectDetailPage /> }], '/study/1');
    expect(await screen.findByText(`Unexpected Error: ${UNREADABLE_ANSWER}`)).toBeInTheDocument();
    expect(screen.queryByText('a.zip')).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Projects' })).toBeInTheDocument();
  });

  it('says the project was not found instead of an empty banner', async () => {
    fakeApi({ 'GET /study-petitions/1': { status: 404, data: { message: 'Not found' } }, 'GET /study-petitions-files': { status: 404 } });
    renderAt([{ path: '/study/:id', element: <ProjectDetailPage /> }], '/study/1');
    expect(await screen.findByText('Resource Not Found: The requested file or resource does not exist')).toBeInTheDocument();
    expect(screen.queryByText(/files found/)).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Projects' })).toBeInTheDocument();
  });
});
