import 'fake-indexeddb/auto';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { storeSession } from '../../../lib/storage';
import { renderWithProviders } from '../../../test/render';
import { createTusTransport } from '../api/tus-upload';
import UploadDialog from '../components/UploadDialog';
import { fakeTusServer } from '../testing/fake-tus-server';
import { closeUnfinishedStore, currentUserId, listUnfinished } from './unfinished-store';
import { UploadsShell } from './UploadsShell';

const transport = createTusTransport({ chunkSize: 10, retryDelays: [0] });
const LAST_MODIFIED = 1_700_000_000_000;

function file(name: string, size = 25): File {
  return new File(['x'.repeat(size)], name, { lastModified: LAST_MODIFIED });
}

/** Holds the second chunk of every upload until released: the upload is mid-way while the test looks. */
function holdSecondChunk() {
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  return { patchFault: (_u: unknown, attempt: number) => (attempt === 1 ? { hold: gate } : null), release: () => release() };
}

/** A page of the signed-in frame whose upload dialog the user can close, as the project page does. */
function Page({ withDialog = true }: { withDialog?: boolean }) {
  const [open, setOpen] = useState(withDialog);
  return <UploadsShell>{open && <UploadDialog open projectId={7} onClose={() => setOpen(false)} onUploaded={vi.fn()} transport={transport} />}</UploadsShell>;
}

/** Starts a.zip in the dialog, then closes it with Esc and 'Continue in Background'. */
async function sendInBackground() {
  const view = renderWithProviders(<Page />);
  const { user } = view;
  await user.upload(screen.getByLabelText('Select Files'), [file('a.zip')]);
  const upload = await screen.findByRole('button', { name: 'Upload Files' });
  // The tray's half of the page (its sessions' de-identification) arrives with the upload chunk.
  await waitFor(() => expect(upload).toBeEnabled());
  await user.click(upload);
  await screen.findByText('Uploading files... 60%');
  fireEvent.keyDown(screen.getByRole('dialog', { name: 'Upload Files' }), { key: 'Escape' });
  const ask = await screen.findByRole('dialog', { name: 'Stop uploading?' });
  await user.click(within(ask).getByRole('button', { name: 'Continue in Background' }));
  await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Upload Files' })).not.toBeInTheDocument());
  return view;
}

const tray = () => screen.getByRole('region', { name: 'Uploads' });

describe('the uploads tray', () => {
  beforeEach(() => storeSession('u1-a', { id: 1, username: 'ann', firstname: 'Ann', lastname: 'Lee', role: 1, company_id: 1, company: null }));
  afterEach(async () => {
    localStorage.clear();
    closeUnfinishedStore();
    await new Promise<void>((resolve) => {
      const req = indexedDB.deleteDatabase('portal-uploads');
      req.onsuccess = () => resolve();
      req.onerror = () => resolve();
    });
  });

  it('takes over an upload when its dialog closes: it shows progress and files left, pauses, resumes, and says when all arrived', async () => {
    const hold = holdSecondChunk();
    const server = fakeTusServer({ patchFault: hold.patchFault });
    const { user } = await sendInBackground();

    expect(await within(await screen.findByRole('region', { name: 'Uploads' })).findByText('Uploading · 1 file left')).toBeInTheDocument();
    expect(within(tray()).getByRole('heading', { name: 'Project 7' })).toBeInTheDocument();
    expect(within(tray()).getByTestId('tray-totals')).toHaveTextContent('60% · 15.00 Bytes of 25.00 Bytes');
    expect(within(tray()).getByRole('progressbar', { name: 'Progress of a.zip' })).toBeInTheDocument();
    // The browser remembers it, for a reload (written at most once a second).
    await waitFor(async () => expect((await listUnfinished(currentUserId())).map((u) => [u.path, u.projectId, u.size])).toEqual([['a.zip', 7, 25]]), { timeout: 3000 });

    await user.click(within(tray()).getByRole('button', { name: 'Pause a.zip' }));
    expect(await within(tray()).findByText(/Paused · .*paused, the server keeps what arrived/)).toBeInTheDocument();
    expect(server.state.terminated).toEqual([]);
    expect(within(tray()).getByRole('button', { name: 'Resume All' })).toBeInTheDocument();

    await user.click(within(tray()).getByRole('button', { name: 'Resume a.zip' }));
    expect(await within(tray()).findByText('Uploads finished', {}, { timeout: 3000 })).toBeInTheDocument();
    expect(within(tray()).getByText(/Uploaded · 25.00 Bytes · processing follows/)).toBeInTheDocument();
    expect(await screen.findByText('Files uploaded successfully')).toBeInTheDocument();
    // Resumed where the server stood, not sent again: the server asked for its offset (HEAD) and took the rest.
    expect(server.requests.some((r) => r.method === 'HEAD')).toBe(true);
    expect(server.state.completed.map((c) => c.upload.filename)).toEqual(['a.zip']);
    await waitFor(async () => expect(await listUnfinished(currentUserId())).toEqual([]));

    await user.click(within(tray()).getByRole('button', { name: 'Close the uploads tray' }));
    expect(screen.queryByRole('region', { name: 'Uploads' })).not.toBeInTheDocument();
    hold.release();
  });

  it('remembers an upload that failed on its way with bytes on the server, for a resume after a reload', async () => {
    // The first chunk arrives, then the network goes for good: every retry of the second fails.
    fakeTusServer({ patchFault: (_u, attempt) => (attempt >= 1 ? { network: true } : null) });
    const view = renderWithProviders(<Page />);
    await view.user.upload(screen.getByLabelText('Select Files'), [file('a.zip')]);
    const upload = await screen.findByRole('button', { name: 'Upload Files' });
    await waitFor(() => expect(upload).toBeEnabled());
    await view.user.click(upload);
    await screen.findByText('a.zip: Connection Error: Could not connect to server. Please check your internet connection.', {}, { timeout: 3000 });
    await waitFor(async () => expect((await listUnfinished(currentUserId())).map((u) => [u.path, u.sent])).toEqual([['a.zip', 10]]), { timeout: 3000 });
  });

  it('cancels a paused upload: the server’s part is removed and the browser forgets it', async () => {
    const hold = holdSecondChunk();
    const server = fakeTusServer({ patchFault: hold.patchFault });
    const { user } = await sendInBackground();
    await within(await screen.findByRole('region', { name: 'Uploads' })).findByText('Uploading · 1 file left');
    await waitFor(async () => expect(await listUnfinished(currentUserId())).toHaveLength(1), { timeout: 3000 });

    await user.click(within(tray()).getByRole('button', { name: 'Pause a.zip' }));
    await within(tray()).findByText(/Paused · /);
    expect(server.state.terminated).toEqual([]);
    await user.click(within(tray()).getByRole('button', { name: 'Cancel a.zip' }));
    await waitFor(() => expect(server.state.terminated).toHaveLength(1));
    expect(server.uploads.size).toBe(0);
    await waitFor(async () => expect(await listUnfinished(currentUserId())).toEqual([]), { timeout: 3000 });
    hold.release();
  });

  it('after a reload lists what did not finish, refuses other files, and resumes the same file from the server’s offset', async () => {
    const hold = holdSecondChunk();
    const server = fakeTusServer({ patchFault: hold.patchFault });
    const first = await sendInBackground();
    await waitFor(async () => expect(await listUnfinished(currentUserId())).toHaveLength(1), { timeout: 3000 });
    // The page goes (a reload, a crash): nothing of it is left but what the browser stored.
    first.unmount();

    const { user } = renderWithProviders(<Page withDialog={false} />);
    const list = await screen.findByRole('list', { name: 'Unfinished uploads' });
    expect(within(tray()).getByText('Uploads to resume')).toBeInTheDocument();
    expect(within(list).getByText('a.zip')).toBeInTheDocument();
    expect(within(list).getByText('Project 7 · 25.00 Bytes · 60% sent')).toBeInTheDocument();

    await user.upload(screen.getByLabelText('Pick files to resume'), [file('a.zip', 26)]);
    expect(await within(tray()).findByText(/None of the picked files is one of the uploads listed here/)).toBeInTheDocument();

    const patchesBefore = server.requests.filter((r) => r.method === 'PATCH').length;
    await user.upload(screen.getByLabelText('Pick files to resume'), [file('a.zip')]);
    expect(await within(tray()).findByText(/Uploaded · 25.00 Bytes/, {}, { timeout: 3000 })).toBeInTheDocument();
    const resumed = server.requests.filter((r) => r.method === 'PATCH').slice(patchesBefore);
    // From the 10 bytes the server had, not from the start, and no second upload was created.
    expect(resumed.map((r) => r.offset)).toEqual(['10']);
    expect(server.requests.filter((r) => r.method === 'POST' && r.url === '/uploads')).toHaveLength(1);
    expect(screen.queryByRole('list', { name: 'Unfinished uploads' })).not.toBeInTheDocument();
    await waitFor(async () => expect(await listUnfinished(currentUserId())).toEqual([]));
    await user.click(within(tray()).getByRole('button', { name: 'Close the uploads tray' }));
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Uploads' })).not.toBeInTheDocument());
    hold.release();
  });
});
