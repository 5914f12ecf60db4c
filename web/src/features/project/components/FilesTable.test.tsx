import { screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { aFile } from '../../../test/fixtures';
import { renderWithProviders } from '../../../test/render';
import { FilesTable } from './FilesTable';

function renderTable(files: ReturnType<typeof aFile>[]) {
  const noop = vi.fn();
  return renderWithProviders(
    <FilesTable files={files} selected={new Set()} onSelectionChange={noop} onOpen={noop} onDownload={noop} onDelete={noop} onUpload={noop} />,
  );
}

describe('FilesTable duplicates', () => {
  it('marks a file whose content was already in the project and names the original', async () => {
    const { user } = renderTable([aFile({ id: 1, file: 'scan.zip' }), aFile({ id: 2, file: 'scan (copy).zip', duplicate_of: 1 })]);
    const chips = screen.getAllByText('Duplicate');
    expect(chips).toHaveLength(1);
    expect(screen.getByLabelText('Duplicate: Same content as scan.zip')).toBeInTheDocument();
    await user.hover(chips[0] as HTMLElement);
    expect(await screen.findByRole('tooltip')).toHaveTextContent('Same content as scan.zip');
  });

  it('still marks a duplicate whose original is not listed', () => {
    renderTable([aFile({ id: 2, file: 'b.zip', duplicate_of: 9 })]);
    expect(screen.getByLabelText('Duplicate: Same content as a file already in this project')).toBeInTheDocument();
  });

  it('shows no mark on files that are not duplicates', () => {
    renderTable([aFile({ id: 1, file: 'a.zip' }), aFile({ id: 2, file: 'b.zip', duplicate_of: null })]);
    expect(screen.queryByText('Duplicate')).not.toBeInTheDocument();
  });
});

describe('FilesTable folders', () => {
  it('shows a folder sent as one delivery as a folder, and a file without the mark', () => {
    renderTable([aFile({ id: 1, file: 'CD', kind: 'folder' }), aFile({ id: 2, file: 'scan.zip', kind: 'archive' })]);
    const folderRow = screen.getByRole('button', { name: 'CD' }).closest('tr') as HTMLElement;
    const fileRow = screen.getByRole('button', { name: 'scan.zip' }).closest('tr') as HTMLElement;
    expect(within(folderRow).getByRole('img', { name: 'Folder' })).toBeInTheDocument();
    expect(within(fileRow).queryByRole('img', { name: 'Folder' })).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Download CD' })).toBeInTheDocument();
  });
});
