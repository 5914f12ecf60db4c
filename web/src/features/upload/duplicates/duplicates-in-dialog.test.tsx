import { createHash } from 'node:crypto';
import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { storeSession } from '../../../lib/storage';
import { renderWithProviders } from '../../../test/render';
import { createTusTransport } from '../api/tus-upload';
import UploadDialog from '../components/UploadDialog';
import { fakeTusServer } from '../testing/fake-tus-server';

const transport = createTusTransport({ chunkSize: 10, retryDelays: [0] });
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

function file(name: string, content: string): File {
  return new File([content], name, { lastModified: 1_700_000_000_000 });
}

/** The project holds a file with a.zip's bytes, under another name. */
function serverWithCopyOfA() {
  return fakeTusServer({
    otherRoutes: { 'POST /study-petitions/7/files/duplicates': { data: [{ sha256: sha256('a'.repeat(25)), file_id: 41, file: 'scan-old.zip' }] } },
  });
}

function renderDialog() {
  const onClose = vi.fn();
  const view = renderWithProviders(<UploadDialog open projectId={7} onClose={onClose} onUploaded={vi.fn()} transport={transport} />);
  const uploadButton = () => within(screen.getByRole('dialog', { name: 'Upload Files' })).getByRole('button', { name: 'Upload Files' });
  return { ...view, onClose, uploadButton };
}

describe('duplicates before sending', () => {
  beforeEach(() => storeSession('u1-a', { id: 1, username: 'ann', firstname: 'Ann', lastname: 'Lee', role: 1, company_id: 1, company: null }));
  afterEach(() => localStorage.clear());

  it('shows a file the project holds already before any byte is sent, skips it by default, and stays open after sending the rest', async () => {
    const server = serverWithCopyOfA();
    const { user, uploadButton, onClose } = renderDialog();
    await user.upload(screen.getByLabelText('Select Files'), [file('a.zip', 'a'.repeat(25)), file('b.zip', 'b'.repeat(25))]);
    await waitFor(() => expect(uploadButton()).toBeEnabled());
    await user.click(uploadButton());

    const notice = await screen.findByTestId('duplicates-notice');
    expect(within(notice).getByText('1 file is already in this project')).toBeInTheDocument();
    expect(within(notice).getByText('a.zip: same content as scan-old.zip')).toBeInTheDocument();
    expect(within(notice).getByRole('button', { name: 'Skip' })).toHaveAttribute('aria-pressed', 'true');
    expect(screen.getByText('Selected files (1 of 2)')).toBeInTheDocument();
    // Asked with the files' hashes, and nothing sent yet.
    const asked = server.requests.filter((r) => r.url.endsWith('/files/duplicates'));
    expect(asked).toHaveLength(1);
    expect(server.requests.filter((r) => r.url.startsWith('/uploads'))).toEqual([]);

    await user.click(uploadButton());
    await waitFor(() => expect(server.state.completed.map((c) => c.upload.filename)).toEqual(['b.zip']));
    expect(await screen.findByText('Files uploaded successfully')).toBeInTheDocument();
    // The skipped file is still there to be seen: the dialog does not close on this partial success.
    expect(onClose).not.toHaveBeenCalled();
    expect(screen.getByTestId('duplicates-notice')).toBeInTheDocument();
    // Asked once: a file already screened is not hashed and asked about again.
    expect(server.requests.filter((r) => r.url.endsWith('/files/duplicates'))).toHaveLength(1);
  });

  it('sends a duplicate all the same when the user chooses Send Anyway', async () => {
    const server = serverWithCopyOfA();
    const { user, uploadButton } = renderDialog();
    await user.upload(screen.getByLabelText('Select Files'), [file('a.zip', 'a'.repeat(25))]);
    await waitFor(() => expect(uploadButton()).toBeEnabled());
    await user.click(uploadButton());
    const notice = await screen.findByTestId('duplicates-notice');
    expect(uploadButton()).toBeDisabled();
    await user.click(within(notice).getByRole('button', { name: 'Send Anyway' }));
    expect(screen.getByText('Selected files (1 of 1)')).toBeInTheDocument();
    await user.click(uploadButton());
    await waitFor(() => expect(server.state.completed.map((c) => c.upload.filename)).toEqual(['a.zip']));
  });

  it('sends at once when the project holds none of the files, or when the server cannot say', async () => {
    const server = fakeTusServer();
    const { user, uploadButton } = renderDialog();
    await user.upload(screen.getByLabelText('Select Files'), [file('c.zip', 'c'.repeat(25))]);
    await waitFor(() => expect(uploadButton()).toBeEnabled());
    await user.click(uploadButton());
    // The fake answers 404 to the question: the file goes, and the server marks a repeat on arrival.
    await waitFor(() => expect(server.state.completed.map((c) => c.upload.filename)).toEqual(['c.zip']));
    expect(screen.queryByTestId('duplicates-notice')).not.toBeInTheDocument();
  });
});
