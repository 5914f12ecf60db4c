import type { TProjectFile } from '@portal/contract';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { storeSession } from '../../../lib/storage';
import { renderWithProviders } from '../../../test/render';
import { aFile } from '../../../test/fixtures';
import { createTusTransport } from '../api/tus-upload';
import { fakeTusServer } from '../testing/fake-tus-server';
import UploadDialog from './UploadDialog';

const FIXTURES = path.resolve(__dirname, '../../../../../server/test/fixtures/dicom');
const transport = createTusTransport({ chunkSize: 10, retryDelays: [0] });

function file(name: string, size = 25, folderPath?: string, content?: BlobPart): File {
  const f = new File([content ?? 'x'.repeat(size)], name, { lastModified: 1_700_000_000_000 });
  if (folderPath) Object.defineProperty(f, 'webkitRelativePath', { value: folderPath });
  return f;
}

function renderDialog(replaces?: TProjectFile) {
  const onClose = vi.fn();
  const onUploaded = vi.fn();
  const view = renderWithProviders(<UploadDialog open projectId={7} onClose={onClose} onUploaded={onUploaded} transport={transport} replaces={replaces} />);
  const dialog = screen.getByRole('dialog', { name: 'Upload Files' });
  const uploadButton = () => within(dialog).getByRole('button', { name: 'Upload Files' });
  const row = (name: string) => within(screen.getByRole('list', { name: 'Files to upload' })).getByText(name).closest('li') as HTMLElement;
  return { ...view, dialog, onClose, onUploaded, uploadButton, row };
}

/** Holds the second chunk of every upload until released, so the in-flight state can be looked at. */
function holdSecondChunk() {
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  return { patchFault: (_u: unknown, attempt: number) => (attempt === 1 ? { hold: gate } : null), release: () => release() };
}

describe('UploadDialog', () => {
  beforeEach(() => storeSession('u1-a', { id: 1, username: 'ann', firstname: 'Ann', lastname: 'Lee', role: 1, company_id: 1, company: null }));
  afterEach(() => localStorage.clear());

  it('lets any file be picked (DICOM from a CD has no extension) and names what the portal takes', () => {
    renderDialog();
    expect(screen.getByLabelText('Select Files')).not.toHaveAttribute('accept');
    expect(screen.getByLabelText('Select Folder')).toHaveAttribute('webkitdirectory');
    expect(
      screen.getByText(/archives \(zip, rar, 7z, tar, gz, tgz, bz2, xz, lzma\) and DICOM files \(dcm, dicom, or without an extension, such as DICOMDIR or IM000001\)/),
    ).toBeInTheDocument();
  });

  it('lists picked files checked, leaves out what it cannot take with the reason, and lets the user clear and select all', async () => {
    const { user, uploadButton } = renderDialog();
    expect(uploadButton()).toBeDisabled();
    const cr = readFileSync(path.join(FIXTURES, 's15_CR_6154'));
    await user.upload(screen.getByLabelText('Select Files'), [file('a.zip'), file('IM000001', 0, undefined, cr), file('notes.txt')]);
    expect(await screen.findByText('Selected files (2 of 2)')).toBeInTheDocument();
    expect(screen.getByText('Left out: notes.txt: not an archive or DICOM')).toBeInTheDocument();
    expect(uploadButton()).toBeEnabled();

    await user.click(screen.getByRole('checkbox', { name: 'a.zip' }));
    expect(screen.getByText('Selected files (1 of 2)')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Clear' }));
    expect(screen.getByText('Selected files (0 of 2)')).toBeInTheDocument();
    expect(uploadButton()).toBeDisabled();
    await user.click(screen.getByRole('button', { name: 'Select All' }));
    expect(screen.getByText('Selected files (2 of 2)')).toBeInTheDocument();
  });

  it('takes a CD export by content and counts DICOM and compressed files apart', async () => {
    const { user } = renderDialog();
    const dicom = (name: string) => readFileSync(path.join(FIXTURES, name));
    await user.upload(screen.getByLabelText('Select Folder'), [
      file('DICOMDIR', 0, 'CD/DICOMDIR', dicom('s40_DICOMDIR')),
      file('IM000001', 0, 'CD/DICOM/IM000001', dicom('s15_CR_6154')),
      file('IM000002', 0, 'CD/DICOM/IM000002', dicom('s24_RTIONPLAN_explicitLE_no_meta.dcm')),
      file('viewer.zip', 10, 'CD/viewer.zip'),
      file('README.txt', 10, 'CD/README.txt'),
    ]);
    expect(
      await screen.findByText('Folder "CD": 5 files in total, 3 DICOM files, 1 compressed file. Left out: CD/README.txt: not an archive or DICOM'),
    ).toBeInTheDocument();
    expect(screen.getByText('Selected files (4 of 4)')).toBeInTheDocument();
    expect(screen.getByRole('checkbox', { name: 'CD/DICOM/IM000001' })).toBeChecked();
  });

  it('refuses a folder without anything the portal accepts', async () => {
    const { user, uploadButton } = renderDialog();
    await user.upload(screen.getByLabelText('Select Folder'), [file('a.txt', 1, 'docs/a.txt'), file('b.png', 1, 'docs/b.png')]);
    expect(await screen.findByText('The folder selected does not contain any compressed files.')).toBeInTheDocument();
    expect(screen.queryByText(/Selected files/)).not.toBeInTheDocument();
    expect(uploadButton()).toBeDisabled();
  });

  it("opens the file chooser with the dialog for 'Upload again', and not otherwise", () => {
    const click = vi.spyOn(HTMLInputElement.prototype, 'click').mockImplementation(() => undefined);
    const { unmount } = renderWithProviders(<UploadDialog open projectId={7} onClose={vi.fn()} onUploaded={vi.fn()} transport={transport} />);
    expect(click).not.toHaveBeenCalled();
    unmount();
    renderWithProviders(<UploadDialog open projectId={7} onClose={vi.fn()} onUploaded={vi.fn()} transport={transport} pickAtOnce />);
    expect(click).toHaveBeenCalledOnce();
    expect((click.mock.contexts[0] as HTMLInputElement).getAttribute('aria-label')).toBe('Select Files');
    click.mockRestore();
  });

  it('uploads through tus with a row per file and overall progress, then says processing follows and closes', async () => {
    const hold = holdSecondChunk();
    const server = fakeTusServer({ patchFault: hold.patchFault });
    const { user, uploadButton, onClose, onUploaded, row } = renderDialog();
    await user.upload(screen.getByLabelText('Select Files'), [file('a.zip', 20), file('b.dcm', 20), file('c.7z', 20)]);
    await user.click(await screen.findByRole('checkbox', { name: 'c.7z' }));
    await user.click(uploadButton());

    // Each file has sent one chunk of 10 bytes and half of the held second one.
    expect(await screen.findByText('Uploading files... 75%')).toBeInTheDocument();
    expect(screen.getByTestId('upload-totals')).toHaveTextContent('0 of 2 files · 30.00 Bytes of 40.00 Bytes');
    expect(within(row('a.zip')).getByText('Uploading')).toBeInTheDocument();
    expect(within(row('a.zip')).getByText('15.00 Bytes of 20.00 Bytes')).toBeInTheDocument();
    expect(within(row('c.7z')).queryByText('Uploading')).not.toBeInTheDocument();
    expect(uploadButton()).toBeDisabled();

    hold.release();
    expect(await screen.findByText('Files uploaded successfully')).toBeInTheDocument();
    expect(screen.getByText('Processing has started: each file shows its status in the files table.')).toBeInTheDocument();
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    // With how many arrived: 'Upload again' removes the failed row only when something did.
    expect(onUploaded).toHaveBeenCalledWith(2);
    expect(server.state.completed.map((c) => [c.upload.filename, c.upload.projectId])).toEqual([
      ['a.zip', '7'],
      ['b.dcm', '7'],
    ]);
  });

  it('names the file that failed, unchecks what arrived, and a second press sends only the rest', async () => {
    let refuse = true;
    const server = fakeTusServer({
      refuseCreation: (u) => (refuse && u.filename === 'bad.zip' ? { status: 415, message: 'The content of bad.zip is not a ZIP archive' } : null),
    });
    const { user, uploadButton, onClose, onUploaded } = renderDialog();
    await user.upload(screen.getByLabelText('Select Files'), [file('good.zip'), file('bad.zip')]);
    await user.click(await screen.findByRole('button', { name: 'Upload Files' }));

    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('1 of 2 files were not uploaded');
    expect(alert).toHaveTextContent('bad.zip: The content of bad.zip is not a ZIP archive');
    expect(alert).not.toHaveTextContent('Error 415');
    expect(screen.getByRole('checkbox', { name: 'good.zip' })).not.toBeChecked();
    expect(screen.getByRole('checkbox', { name: 'bad.zip' })).toBeChecked();
    expect(screen.getByText('Selected files (1 of 2)')).toBeInTheDocument();
    await waitFor(() => expect(onUploaded).toHaveBeenCalled());
    expect(onClose).not.toHaveBeenCalled();
    // Spec §4: the bar resets once the upload has ended; the rows keep each file's outcome.
    await waitFor(() => expect(screen.queryByText(/^Uploading files\.\.\./)).not.toBeInTheDocument());
    // A refusal is final: the row offers no retry of the same bytes.
    expect(screen.queryByRole('button', { name: 'Retry bad.zip' })).not.toBeInTheDocument();

    refuse = false;
    await user.click(uploadButton());
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(server.requests.filter((r) => r.method === 'POST' && r.url === '/uploads').length).toBe(3);
    expect(server.state.completed.map((c) => c.upload.filename)).toEqual(['good.zip', 'bad.zip']);
  });

  it('Cancel during an upload cancels every file and deletes it on the server, and the dialog stays to show it', async () => {
    const hold = holdSecondChunk();
    const server = fakeTusServer({ patchFault: hold.patchFault });
    const { user, dialog, onClose, row } = renderDialog();
    await user.upload(screen.getByLabelText('Select Files'), [file('a.zip'), file('b.zip')]);
    await user.click(await screen.findByRole('button', { name: 'Upload Files' }));
    await screen.findByText('Uploading files... 60%');

    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(server.state.terminated).toEqual([1, 2]));
    expect(server.uploads.size).toBe(0);
    expect(within(row('a.zip')).getByText('Cancelled')).toBeInTheDocument();
    expect(within(row('b.zip')).getByText('Cancelled')).toBeInTheDocument();
    expect(onClose).not.toHaveBeenCalled();
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(onClose).toHaveBeenCalled();
  });

  it('asks before Esc stops an upload: keeping it goes on, stopping cancels and closes', async () => {
    const hold = holdSecondChunk();
    const server = fakeTusServer({ patchFault: hold.patchFault });
    const { user, onClose, dialog } = renderDialog();
    await user.upload(screen.getByLabelText('Select Files'), [file('a.zip')]);
    await user.click(await screen.findByRole('button', { name: 'Upload Files' }));
    await screen.findByText('Uploading files... 60%');

    fireEvent.keyDown(dialog, { key: 'Escape' });
    const ask = await screen.findByRole('dialog', { name: 'Stop uploading?' });
    await user.click(within(ask).getByRole('button', { name: 'Keep Uploading' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Stop uploading?' })).not.toBeInTheDocument());
    expect(onClose).not.toHaveBeenCalled();
    expect(server.uploads.size).toBe(1);

    fireEvent.keyDown(dialog, { key: 'Escape' });
    await user.click(within(await screen.findByRole('dialog', { name: 'Stop uploading?' })).getByRole('button', { name: 'Stop Upload' }));
    expect(onClose).toHaveBeenCalled();
    await waitFor(() => expect(server.state.terminated).toEqual([1]));
  });

  it('cancels and retries one row alone', async () => {
    const hold = holdSecondChunk();
    const server = fakeTusServer({ patchFault: (u, attempt) => (u.id === 1 ? hold.patchFault(u, attempt) : null) });
    const { user, onClose } = renderDialog();
    await user.upload(screen.getByLabelText('Select Files'), [file('a.zip'), file('b.zip')]);
    await user.click(await screen.findByRole('button', { name: 'Upload Files' }));
    await user.click(await screen.findByRole('button', { name: 'Cancel a.zip' }));
    await waitFor(() => expect(server.state.terminated).toEqual([1]));
    await waitFor(() => expect(server.state.completed.map((c) => c.upload.filename)).toEqual(['b.zip']));
    expect(onClose).not.toHaveBeenCalled();

    await user.click(await screen.findByRole('button', { name: 'Retry a.zip' }));
    await waitFor(() => expect(server.state.completed.map((c) => c.upload.filename)).toEqual(['b.zip', 'a.zip']));
    // Everything listed has now arrived: the dialog closes as after any successful upload.
    await waitFor(() => expect(onClose).toHaveBeenCalled());
  });

  it('asks before the page is left or reloaded while uploading, and not after', async () => {
    const hold = holdSecondChunk();
    fakeTusServer({ patchFault: hold.patchFault });
    const { user } = renderDialog();
    const leave = () => {
      const event = new Event('beforeunload', { cancelable: true });
      fireEvent(window, event);
      return event.defaultPrevented;
    };
    await user.upload(screen.getByLabelText('Select Files'), [file('a.zip')]);
    expect(leave()).toBe(false);
    await user.click(await screen.findByRole('button', { name: 'Upload Files' }));
    await screen.findByText('Uploading files... 60%');
    expect(leave()).toBe(true);
    hold.release();
    await screen.findByText('Files uploaded successfully');
    expect(leave()).toBe(false);
  });

  it('marks an upload whose content is already in the project as a duplicate and stays open to say so', async () => {
    fakeTusServer({
      otherRoutes: {
        'GET /study-petitions-files': {
          data: [
            aFile({ id: 5, file: 'original.zip', duplicate_of: null }),
            aFile({ id: 100, file: 'copy.zip', duplicate_of: 5 }),
          ],
        },
      },
    });
    const { user, onClose, row } = renderDialog();
    await user.upload(screen.getByLabelText('Select Files'), [file('copy.zip')]);
    await user.click(await screen.findByRole('button', { name: 'Upload Files' }));
    expect(await within(row('copy.zip')).findByText('Duplicate')).toBeInTheDocument();
    expect(within(row('copy.zip')).getByText(/same content as original.zip, kept and marked as a duplicate/)).toBeInTheDocument();
    expect(onClose).not.toHaveBeenCalled();
  });
  describe('a picked folder is sent as one delivery', () => {
    // Chunks of 1 KiB: a bundle of three small files (4 KiB of tar) takes a few requests, so it can be held mid-way.
    const folderTransport = createTusTransport({ chunkSize: 1024, retryDelays: [] });
    const renderFolderDialog = () => {
      const onClose = vi.fn();
      const view = renderWithProviders(<UploadDialog open projectId={7} onClose={onClose} onUploaded={vi.fn()} transport={folderTransport} />);
      const row = (name: string) => within(screen.getByRole('list', { name: 'Files to upload' })).getByText(name).closest('li') as HTMLElement;
      return { ...view, onClose, row };
    };
    const pickFolder = async (user: ReturnType<typeof renderDialog>['user']) => {
      await user.upload(screen.getByLabelText('Select Folder'), [
        file('index.zip', 20, 'CD/index.zip'),
        file('IM1.dcm', 30, 'CD/DICOM/ST1/IM1.dcm'),
        file('IM2.dcm', 40, 'CD/DICOM/ST2/IM2.dcm'),
        file('README.txt', 10, 'CD/README.txt'),
      ]);
      await screen.findByText('Selected files (3 of 3)');
    };
    const members = (server: ReturnType<typeof fakeTusServer>) =>
      server.state.completed.filter((c) => c.upload.bundle).map((c) => c.upload.members?.map((m) => [m.path, new TextDecoder().decode(m.bytes)]));

    it('packs the folder\'s small files into one bundle of its delivery, with their paths and bytes, and completes it once', async () => {
      const server = fakeTusServer();
      const { user, onClose } = renderFolderDialog();
      await pickFolder(user);
      await user.click(screen.getByRole('button', { name: 'Upload Files' }));

      expect(await screen.findByText('Files uploaded successfully')).toBeInTheDocument();
      await waitFor(() => expect(onClose).toHaveBeenCalled());
      expect(server.deliveries).toEqual([{ id: 500, name: 'CD', projectId: 7, completed: true }]);
      // In path order, as the folder filter lists them: one tus upload for three files.
      expect(members(server)).toEqual([
        [
          ['DICOM/ST1/IM1.dcm', 'x'.repeat(30)],
          ['DICOM/ST2/IM2.dcm', 'x'.repeat(40)],
          ['index.zip', 'x'.repeat(20)],
        ],
      ]);
      expect(server.state.completed.map((c) => [c.upload.delivery, c.upload.filename, c.upload.relativePath, c.upload.projectId])).toEqual([['500', 'bundle.tar', undefined, '']]);
      expect(server.requests.filter((r) => r.method === 'POST' && r.url === '/uploads')).toHaveLength(1);
      expect(server.requests.filter((r) => r.url === '/deliveries/500/complete')).toHaveLength(1);
    });

    it('shows every file of a bundle on its way with its share of the bytes, and counts files one by one', async () => {
      const hold = holdSecondChunk();
      const server = fakeTusServer({ patchFault: hold.patchFault });
      const { user, row } = renderFolderDialog();
      await pickFolder(user);
      await user.click(screen.getByRole('button', { name: 'Upload Files' }));

      // The first 1 KiB chunk and half of the second of a 4 KiB bundle: 37.5% of each file.
      expect(await screen.findByText('Uploading files... 37%')).toBeInTheDocument();
      expect(screen.getByTestId('upload-totals')).toHaveTextContent('0 of 3 files · 33.00 Bytes of 90.00 Bytes');
      expect(within(row('CD/DICOM/ST2/IM2.dcm')).getByText('Uploading')).toBeInTheDocument();
      expect(within(row('CD/DICOM/ST2/IM2.dcm')).getByText('15.00 Bytes of 40.00 Bytes · in a bundle of 3 files')).toBeInTheDocument();
      expect(within(row('CD/index.zip')).getByText('7.00 Bytes of 20.00 Bytes · in a bundle of 3 files')).toBeInTheDocument();
      hold.release();
      await screen.findByText('Files uploaded successfully');
      await waitFor(() => expect(server.deliveries[0]?.completed).toBe(true));
    });

    it('cancelling one file of a bundle on its way stops the bundle, and the others arrive in a new one', async () => {
      const hold = holdSecondChunk();
      const server = fakeTusServer({ patchFault: (u, attempt) => (u.id === 1 ? hold.patchFault(u, attempt) : null) });
      const { user, row } = renderFolderDialog();
      await pickFolder(user);
      await user.click(screen.getByRole('button', { name: 'Upload Files' }));
      await screen.findByText('Uploading files... 37%');

      await user.click(screen.getByRole('button', { name: 'Cancel CD/DICOM/ST1/IM1.dcm' }));
      await waitFor(() => expect(server.deliveries[0]?.completed).toBe(true));
      expect(server.state.terminated).toEqual([1]);
      expect(members(server)).toEqual([
        [
          ['DICOM/ST2/IM2.dcm', 'x'.repeat(40)],
          ['index.zip', 'x'.repeat(20)],
        ],
      ]);
      expect(within(row('CD/DICOM/ST1/IM1.dcm')).getByText('Cancelled')).toBeInTheDocument();
      expect(screen.getByRole('checkbox', { name: 'CD/DICOM/ST1/IM1.dcm' })).not.toBeChecked();
      expect(within(row('CD/index.zip')).getByText('Uploaded')).toBeInTheDocument();
    });

    it('names the file the server refused in a bundle, and the others still arrive', async () => {
      const server = fakeTusServer({ refusePath: (p) => (p === 'DICOM/ST2/IM2.dcm' ? 'The path "DICOM/ST2/IM2.dcm" cannot be stored' : null) });
      const { user, row } = renderFolderDialog();
      await pickFolder(user);
      await user.click(screen.getByRole('button', { name: 'Upload Files' }));

      const alert = await screen.findByRole('alert');
      expect(alert).toHaveTextContent('1 of 3 files were not uploaded');
      expect(alert).toHaveTextContent('CD/DICOM/ST2/IM2.dcm: Invalid Data: The path "DICOM/ST2/IM2.dcm" cannot be stored');
      expect(within(row('CD/DICOM/ST1/IM1.dcm')).getByText('Uploaded')).toBeInTheDocument();
      expect(within(row('CD/DICOM/ST2/IM2.dcm')).getByText('Failed')).toBeInTheDocument();
      expect([...(server.deliveryFiles.get('500')?.keys() ?? [])]).toEqual(['DICOM/ST1/IM1.dcm', 'index.zip']);
    });

    it('shows the server\'s refusal of the delivery and sends no file', async () => {
      const server = fakeTusServer({ refuseDelivery: () => ({ status: 422, message: 'The name is too long' }) });
      const { user } = renderFolderDialog();
      await pickFolder(user);
      await user.click(screen.getByRole('button', { name: 'Upload Files' }));

      const alert = await screen.findByRole('alert');
      expect(alert).toHaveTextContent('3 of 3 files were not uploaded');
      expect(alert).toHaveTextContent('CD/index.zip: Invalid Data: The name is too long');
      expect(server.requests.filter((r) => r.url === '/uploads')).toHaveLength(0);
    });

    it('does not complete the delivery while its bundle failed, and completes it after the retry of one of its files', async () => {
      let refuse = true;
      const server = fakeTusServer({ refuseFinal: () => (refuse ? { status: 500, message: 'Disk trouble' } : null) });
      const { user } = renderFolderDialog();
      await pickFolder(user);
      await user.click(screen.getByRole('button', { name: 'Upload Files' }));

      expect(await screen.findByRole('alert')).toHaveTextContent('3 of 3 files were not uploaded');
      expect(server.deliveries[0]?.completed).toBe(false);
      expect(server.requests.filter((r) => r.url.endsWith('/complete'))).toHaveLength(0);

      refuse = false;
      await user.click(screen.getByRole('button', { name: 'Retry CD/index.zip' }));
      await waitFor(() => expect(server.deliveries[0]?.completed).toBe(true));
      expect(server.deliveries).toHaveLength(1);
      expect(members(server)?.[0]).toHaveLength(3);
      expect(server.requests.filter((r) => r.url.endsWith('/complete'))).toHaveLength(1);
    });

    it('after a reload, picking the same folder again resumes its bundle in the same delivery', async () => {
      const server = fakeTusServer({ patchFault: (u, attempt) => (u.id === 1 && attempt === 1 ? { hold: new Promise<void>(() => undefined) } : null) });
      const first = renderFolderDialog();
      await pickFolder(first.user);
      await first.user.click(screen.getByRole('button', { name: 'Upload Files' }));
      await screen.findByText('Uploading files... 37%');
      // A reload: the page goes away, its requests die, the server keeps the first chunk.
      first.unmount();
      expect(server.state.bytesReceived).toBe(1024);

      const again = renderFolderDialog();
      await pickFolder(again.user);
      await again.user.click(screen.getByRole('button', { name: 'Upload Files' }));
      await waitFor(() => expect(server.deliveries[0]?.completed).toBe(true));
      expect(server.deliveries).toHaveLength(1);
      expect(server.requests.filter((r) => r.method === 'POST' && r.url === '/uploads')).toHaveLength(1);
      expect(server.requests.filter((r) => r.method === 'HEAD')).toHaveLength(1);
      expect(server.state.bytesReceived).toBe(4096);
      expect(members(server)?.[0]).toHaveLength(3);
    });
  });

  it('sends picked files one upload each, without a delivery', async () => {
    const server = fakeTusServer();
    const { user, uploadButton, onClose } = renderDialog();
    await user.upload(screen.getByLabelText('Select Files'), [file('a.zip', 20), file('b.dcm', 20)]);
    await user.click(await screen.findByRole('checkbox', { name: 'a.zip' }).then(() => uploadButton()));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(server.deliveries).toHaveLength(0);
    expect(server.requests.filter((r) => r.url.startsWith('/deliveries'))).toHaveLength(0);
    expect(server.state.completed.map((c) => [c.upload.filename, c.upload.projectId, c.upload.delivery])).toEqual([
      ['a.zip', '7', undefined],
      ['b.dcm', '7', undefined],
    ]);
  });

  describe('sent as the replacement of a rejected upload', () => {
    const rejected = { id: 42, file: 'CT week 1.zip' } as TProjectFile;

    it('says which upload it replaces, takes one file, and names the rejected file in the upload', async () => {
      const server = fakeTusServer();
      const { user, uploadButton, onClose } = renderDialog(rejected);
      expect(screen.getByTestId('replaces-line')).toHaveTextContent('This upload replaces “CT week 1.zip”, which was rejected: send one file, one archive or one folder.');
      expect(screen.getByLabelText('Select Files')).not.toHaveAttribute('multiple');
      await user.upload(screen.getByLabelText('Select Files'), [file('b.zip', 20)]);
      await user.click(await screen.findByRole('checkbox', { name: 'b.zip' }).then(() => uploadButton()));
      await waitFor(() => expect(onClose).toHaveBeenCalled());
      expect(server.state.completed.map((c) => [c.upload.filename, c.upload.replaces])).toEqual([['b.zip', '42']]);
    });

    it('names the rejected file when a folder opens its delivery, not in each of its files', async () => {
      const server = fakeTusServer();
      const { user, uploadButton, onClose } = renderDialog(rejected);
      await user.upload(screen.getByLabelText('Select Folder'), [file('a.dcm', 20, 'CD/a.dcm'), file('b.dcm', 20, 'CD/b.dcm')]);
      await user.click(await screen.findByText(/Folder "CD"/).then(() => uploadButton()));
      await waitFor(() => expect(onClose).toHaveBeenCalled());
      expect(server.deliveries.map((d) => d.replaces)).toEqual([42]);
      expect(server.state.completed.every((c) => c.upload.replaces === undefined)).toBe(true);
    });
  });
});
