import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { fakeApi } from '../../../test/fake-api';
import { renderWithProviders } from '../../../test/render';
import UploadDialog from './UploadDialog';

function file(name: string, size = 10, folderPath?: string): File {
  const f = new File(['x'.repeat(size)], name);
  if (folderPath) Object.defineProperty(f, 'webkitRelativePath', { value: folderPath });
  return f;
}

function renderDialog() {
  const onClose = vi.fn();
  const onUploaded = vi.fn();
  const view = renderWithProviders(<UploadDialog open projectId={7} onClose={onClose} onUploaded={onUploaded} />);
  const dialog = screen.getByRole('dialog', { name: 'Upload Files' });
  const uploadButton = () => within(dialog).getByRole('button', { name: 'Upload Files' });
  return { ...view, dialog, onClose, onUploaded, uploadButton };
}

describe('UploadDialog', () => {
  it('offers the accepted types and a folder picker', () => {
    renderDialog();
    expect(screen.getByLabelText('Select Files')).toHaveAttribute('accept', '.dcm,.zip,.rar,.7z,.tar,.gz,.bz2');
    expect(screen.getByLabelText('Select Folder')).toHaveAttribute('webkitdirectory');
  });

  it('lists picked files checked, and lets the user clear and select all', async () => {
    const { user, uploadButton } = renderDialog();
    expect(uploadButton()).toBeDisabled();
    await user.upload(screen.getByLabelText('Select Files'), [file('a.zip'), file('b.dcm')]);
    expect(screen.getByText('Selected files (2 of 2)')).toBeInTheDocument();
    expect(uploadButton()).toBeEnabled();

    await user.click(screen.getByRole('checkbox', { name: 'a.zip' }));
    expect(screen.getByText('Selected files (1 of 2)')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Clear' }));
    expect(screen.getByText('Selected files (0 of 2)')).toBeInTheDocument();
    expect(uploadButton()).toBeDisabled();

    await user.click(screen.getByRole('button', { name: 'Select All' }));
    expect(screen.getByText('Selected files (2 of 2)')).toBeInTheDocument();
  });

  it('keeps only archives and DICOM files from a folder and describes it', async () => {
    const { user } = renderDialog();
    await user.upload(screen.getByLabelText('Select Folder'), [
      file('a.zip', 10, 'scans/a.zip'),
      file('notes.txt', 10, 'scans/notes.txt'),
      file('b.dcm', 10, 'scans/sub/b.dcm'),
      file('c.xz', 10, 'scans/c.xz'),
    ]);
    expect(screen.getByText('Folder "scans": 4 files in total, 3 compressed files')).toBeInTheDocument();
    expect(screen.getByText('Selected files (3 of 3)')).toBeInTheDocument();
    expect(screen.getByRole('checkbox', { name: 'scans/sub/b.dcm' })).toBeChecked();
    expect(screen.queryByRole('checkbox', { name: 'scans/notes.txt' })).not.toBeInTheDocument();
  });

  it('refuses a folder without any compressed file', async () => {
    const { user, uploadButton } = renderDialog();
    await user.upload(screen.getByLabelText('Select Folder'), [file('a.txt', 1, 'docs/a.txt'), file('b.png', 1, 'docs/b.png')]);
    expect(screen.getByText('The folder selected does not contain any compressed files.')).toBeInTheDocument();
    expect(screen.queryByText(/Selected files/)).not.toBeInTheDocument();
    expect(uploadButton()).toBeDisabled();
  });

  it('uploads the checked files in parallel as multipart, then closes', async () => {
    const releases: Array<() => void> = [];
    const api = fakeApi({
      'POST /upload-study-petitions-files': (call) =>
        new Promise((resolve) => {
          call.config.onUploadProgress?.({ loaded: 50, total: 100, bytes: 50, lengthComputable: true });
          releases.push(() => resolve({ status: 201, data: { data: [] } }));
        }),
    });
    const { user, uploadButton, onClose, onUploaded } = renderDialog();
    await user.upload(screen.getByLabelText('Select Files'), [file('a.zip', 100), file('b.dcm', 100), file('c.7z', 100)]);
    await user.click(screen.getByRole('checkbox', { name: 'c.7z' }));
    await user.click(uploadButton());

    await waitFor(() => expect(releases).toHaveLength(2));
    expect(screen.getByText('Uploading files... 50%')).toBeInTheDocument();
    const sent = api.callsTo('POST', '/upload-study-petitions-files').map((c) => c.data as FormData);
    expect(sent.map((form) => [form.get('studypetitionid'), (form.get('file') as File).name])).toEqual([
      ['7', 'a.zip'],
      ['7', 'b.dcm'],
    ]);
    expect(api.calls[0]?.config.timeout).toBe(0);

    releases.forEach((release) => release());
    expect(await screen.findByText('Files uploaded successfully')).toBeInTheDocument();
    expect(onUploaded).toHaveBeenCalled();
    expect(onClose).toHaveBeenCalled();
  });

  it('shows a mapped error in a closable alert and stays open', async () => {
    fakeApi({ 'POST /upload-study-petitions-files': { status: 409 } });
    const { user, uploadButton, onClose, onUploaded } = renderDialog();
    await user.upload(screen.getByLabelText('Select Files'), [file('a.zip')]);
    await user.click(uploadButton());
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Conflict');
    expect(alert).toHaveTextContent('The file already exists or there is a data conflict');
    expect(onClose).not.toHaveBeenCalled();
    expect(onUploaded).toHaveBeenCalled();
    await user.click(within(alert).getByRole('button', { name: 'Close' }));
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });
});
