import { screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '../../../test/render';
import type { UploadRow } from '../model/upload-queue';
import { UploadRows } from './UploadRows';

function rows(count: number): UploadRow[] {
  return Array.from({ length: count }, (_, i) => {
    const path = `CD/DICOM/IM${String(i + 1).padStart(6, '0')}`;
    return {
      key: path,
      path,
      file: new File(['x'.repeat(10)], path.split('/').pop() ?? path),
      kind: 'dicom',
      checked: true,
      status: 'ready',
      sent: 0,
      resumed: false,
      error: null,
      retryable: true,
      fileId: null,
      folder: 'CD',
      bundled: 0,
      send: null,
    };
  });
}

const handlers = { onCheck: vi.fn(), onCheckAll: vi.fn(), onCancel: vi.fn(), onRetry: vi.fn() };

describe('UploadRows', () => {
  afterEach(() => vi.restoreAllMocks());

  it('draws every row of a short list', () => {
    renderWithProviders(<UploadRows rows={rows(12)} notes={new Map()} locked={false} {...handlers} />);
    expect(within(screen.getByRole('list', { name: 'Files to upload' })).getAllByRole('listitem')).toHaveLength(12);
  });

  it('draws only the rows in view of a 2,000-file folder, each saying where it stands in the whole list', () => {
    // jsdom lays nothing out: the list's box and its rows are given the sizes a browser would give them.
    vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(300);
    vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(600);
    vi.spyOn(HTMLElement.prototype, 'offsetHeight', 'get').mockReturnValue(60);
    vi.spyOn(HTMLElement.prototype, 'getBoundingClientRect').mockReturnValue(DOMRect.fromRect({ width: 600, height: 60 }));
    renderWithProviders(<UploadRows rows={rows(2000)} notes={new Map()} locked={false} {...handlers} />);
    expect(screen.getByText('Selected files (2000 of 2000)')).toBeInTheDocument();
    const drawn = within(screen.getByRole('list', { name: 'Files to upload' })).getAllByRole('listitem');
    expect(drawn.length).toBeGreaterThan(0);
    expect(drawn.length).toBeLessThan(40);
    expect(drawn[0]).toHaveAttribute('aria-setsize', '2000');
    expect(drawn[0]).toHaveAttribute('aria-posinset', '1');
    expect(within(drawn[0]!).getByRole('checkbox', { name: 'CD/DICOM/IM000001' })).toBeChecked();
  });
});
