import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeApi } from '../../../test/fake-api';
import { filesRoutes } from '../../../test/fake-files';
import { aFile, aProject } from '../../../test/fixtures';
import { renderAt } from '../../../test/render';
import { viewportWidth } from '../../../test/viewport';
import ProjectDetailPage from './ProjectDetailPage';

// 12 files: scan-01.dcm … scan-12.dcm, file 12 failed, the rest ready; sizes grow with the number.
const files = Array.from({ length: 12 }, (_, i) =>
  aFile({
    id: i + 1,
    file: `scan-${String(i + 1).padStart(2, '0')}.dcm`,
    filesize: (i + 1) * 1000,
    kind: 'dicom',
    processing: i === 11 ? { status: 'failed', error: 'The file is not DICOM', summary: null } : { status: 'ready', error: null, summary: null },
  }),
);

function serve() {
  const api = fakeApi({
    'GET /study-petitions/1': { status: 200, data: { data: [aProject({ id: 1, name: 'Brain MRI' })] } },
    ...filesRoutes(files),
  });
  const view = renderAt([{ path: '/study/:id', element: <ProjectDetailPage /> }], '/study/1');
  return { ...view, api };
}

const shownNames = () => within(screen.getByRole('table', { name: 'Project files' })).getAllByRole('row').slice(1).map((row) => within(row).getAllByRole('button')[0]?.textContent);
const lastParams = (api: ReturnType<typeof serve>['api']) => api.callsTo('GET', '/study-petitions-files').at(-1)?.params;


describe('the project files table, searched, sorted and filtered by the server', () => {
  it("pages with the server's total and searches by name from page 1", async () => {
    const { user, api } = serve();
    expect(await screen.findByText('12 files found')).toBeInTheDocument();
    expect(shownNames()).toEqual(['scan-12.dcm', 'scan-11.dcm', 'scan-10.dcm', 'scan-09.dcm', 'scan-08.dcm']);
    expect(screen.getByText('1–5 of 12')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: /next page/i }));
    await waitFor(() => expect(lastParams(api)).toMatchObject({ page: 2, per_page: 5 }));
    await user.type(screen.getByRole('searchbox', { name: 'Search files' }), 'scan-1');
    await waitFor(() => expect(shownNames()).toEqual(['scan-12.dcm', 'scan-11.dcm', 'scan-10.dcm']));
    expect(lastParams(api)).toEqual({ study_petition_id: 1, q: 'scan-1', page: 1, per_page: 5 });
    // Typing asked the server once the typing stopped, not once per letter.
    expect(api.callsTo('GET', '/study-petitions-files').filter((c) => (c.params as { q?: string }).q !== undefined)).toHaveLength(1);
    expect(screen.getByText('3 files found')).toBeInTheDocument();
  });

  it('sorts by a clicked header, ascending then descending', async () => {
    const { user, api } = serve();
    await screen.findByText('12 files found');
    await user.click(screen.getByRole('button', { name: 'Size' }));
    await waitFor(() => expect(shownNames()[0]).toBe('scan-01.dcm'));
    expect(lastParams(api)).toMatchObject({ sort: 'filesize', order: 'asc', page: 1 });
    await user.click(screen.getByRole('button', { name: 'Size' }));
    await waitFor(() => expect(shownNames()[0]).toBe('scan-12.dcm'));
    expect(lastParams(api)).toMatchObject({ sort: 'filesize', order: 'desc' });
  });

  it('filters by processing status and says when nothing matches', async () => {
    const { user, api } = serve();
    await screen.findByText('12 files found');
    await user.click(screen.getByRole('combobox', { name: 'Processing status' }));
    await user.click(screen.getByRole('option', { name: 'Failed' }));
    await waitFor(() => expect(shownNames()).toEqual(['scan-12.dcm']));
    expect(lastParams(api)).toMatchObject({ status: 'failed', page: 1 });
    await user.click(screen.getByRole('combobox', { name: 'Processing status' }));
    await user.click(screen.getByRole('option', { name: 'Pending' }));
    expect(await screen.findByText(/No files match the search or the status filter/)).toBeInTheDocument();
    // The spec's empty state is for an empty project, not for a search without matches.
    expect(screen.queryByText('No files found')).not.toBeInTheDocument();
  });
});

describe('selecting a page, then every matching file', () => {
  it('selects the page only, then all N as a second step; the delete deletes what the dialog listed', async () => {
    const { user, api } = serve();
    await screen.findByText('12 files found');
    await user.click(screen.getByRole('checkbox', { name: 'Select all files' }));
    expect(screen.getByText('(5 selected)')).toBeInTheDocument();
    expect(screen.getByText('All 5 files on this page are selected.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Select all 12 files' }));
    expect(await screen.findByText('(12 selected)')).toBeInTheDocument();
    expect(screen.getByText('All 12 files are selected.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Delete Selected (12)' }));
    const dialog = screen.getByRole('dialog', { name: 'Confirm Bulk Delete' });
    expect(within(dialog).getByText('Are you sure you want to delete 12 selected file(s)? This action cannot be undone.')).toBeInTheDocument();
    const listed = within(within(dialog).getByRole('list', { name: 'Files to delete' })).getAllByRole('listitem').map((li) => li.textContent);
    expect(listed).toEqual(['scan-12.dcm', 'scan-11.dcm', 'scan-10.dcm', 'scan-09.dcm', 'scan-08.dcm', 'and 7 more']);
    await user.click(within(dialog).getByRole('button', { name: 'Delete 12 Files' }));
    expect(await screen.findByText('12 files deleted successfully')).toBeInTheDocument();
    expect(api.calls.filter((c) => c.method === 'PUT')).toHaveLength(12);
    expect(await screen.findByText('No files found')).toBeInTheDocument();
  });

  it('selects only the matching files, and a new search starts a new selection', async () => {
    const { user } = serve();
    await screen.findByText('12 files found');
    await user.type(screen.getByRole('searchbox', { name: 'Search files' }), 'scan-0');
    await screen.findByText('9 files found');
    await user.click(screen.getByRole('checkbox', { name: 'Select all files' }));
    await user.click(screen.getByRole('button', { name: 'Select all 9 files' }));
    expect(await screen.findByText('(9 selected)')).toBeInTheDocument();
    await user.clear(screen.getByRole('searchbox', { name: 'Search files' }));
    expect(await screen.findByText('(0 selected)')).toBeInTheDocument();
  });
});

describe('the files on a phone', () => {
  it('shows each file as a card with its name, size, status and actions, and no table', async () => {
    viewportWidth(390);
    const { user } = serve();
    await screen.findByText('12 files found');
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
    const card = within(screen.getByRole('listitem', { name: 'scan-12.dcm' }));
    expect(card.getByText('11.72 KB')).toBeInTheDocument();
    expect(card.getByText('Failed')).toBeInTheDocument();
    for (const action of ['View contents of scan-12.dcm', 'Download scan-12.dcm', 'Delete scan-12.dcm', 'Upload scan-12.dcm again']) {
      expect(card.getByRole('button', { name: action })).toBeInTheDocument();
    }
    await user.click(card.getByRole('button', { name: 'Delete scan-12.dcm' }));
    expect(within(screen.getByRole('dialog', { name: 'Confirm Delete' })).getByText('scan-12.dcm')).toBeInTheDocument();
  });
});
