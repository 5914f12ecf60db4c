import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { fakeApi } from '../test/fake-api';
import { renderWithProviders } from '../test/render';
import { SeriesThumbnail } from './SeriesThumbnail';

const PATH = 'GET /study-petitions/1/studies/1.2.3/series/1.2.3.4/thumbnail';

function show() {
  return renderWithProviders(<SeriesThumbnail projectId={1} study="1.2.3" series="1.2.3.4" label="CT · Head" />);
}

describe('SeriesThumbnail', () => {
  it('shows the picture read with the session, and asks again with its ETag', async () => {
    // jsdom has no object URLs: the picture's address is what the browser would make of the blob.
    const created = vi.fn(() => 'blob:thumbnail-1');
    Object.assign(URL, { createObjectURL: created, revokeObjectURL: vi.fn() });
    const api = fakeApi({ [PATH]: { status: 200, data: new Blob(['jpeg']), headers: { etag: '"abc"' } } });
    const first = show();
    expect(await screen.findByRole('img', { name: 'Thumbnail of CT · Head' })).toHaveAttribute('src', 'blob:thumbnail-1');
    first.unmount();
    fakeApi({ [PATH]: (call) => (call.config.headers.get('If-None-Match') === '"abc"' ? { status: 304 } : { status: 500 }) });
    show();
    expect(await screen.findByRole('img', { name: 'Thumbnail of CT · Head' })).toHaveAttribute('src', 'blob:thumbnail-1');
    expect(created).toHaveBeenCalledTimes(1);
    expect(api.calls[0]!.config.responseType).toBe('blob');
  });

  it('says in words why there is no thumbnail', async () => {
    fakeApi({ [PATH]: { status: 409, data: new Blob([JSON.stringify({ message: 'This series’ pictures use a compression the thumbnail renderer cannot read (MPEG-2 video).' })]) } });
    show();
    expect(await screen.findByText('This series’ pictures use a compression the thumbnail renderer cannot read (MPEG-2 video).')).toBeVisible();
  });

  it('shows a neutral placeholder while the thumbnail is being made', async () => {
    fakeApi({ [PATH]: { status: 202, data: new Blob([JSON.stringify({ message: 'still being made' })]), headers: { 'retry-after': '5' } } });
    show();
    await waitFor(() => expect(screen.getByRole('img', { name: 'Thumbnail of CT · Head is being made' })).toBeVisible());
    expect(screen.queryByText('still being made')).toBeNull();
  });
});
