import type { TProjectFile } from '@portal/contract';
import { screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { aFile, aSummary } from '../../../test/fixtures';
import { renderWithProviders } from '../../../test/render';
import { FilesTable } from './FilesTable';
import { useFilesQuery } from './use-files-query';

function Harness({ files, onUpload }: { files: TProjectFile[]; onUpload: (file: TProjectFile) => void }) {
  const query = useFilesQuery();
  const noop = vi.fn();
  return (
    <FilesTable
      files={files}
      total={files.length}
      query={query}
      selected={new Map()}
      onSelectionChange={noop}
      selectingAll={false}
      onSelectAllMatching={noop}
      onOpen={noop}
      onDownload={noop}
      onDelete={noop}
      onUpload={noop}
      onUploadAgain={onUpload}
    />
  );
}

function renderTable(files: TProjectFile[], onUpload = vi.fn()) {
  return renderWithProviders(<Harness files={files} onUpload={onUpload} />);
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

describe('FilesTable summaries and failures', () => {
  it('shows the summary line of every row, adding up', () => {
    renderTable([
      aFile({
        id: 1,
        file: 'CD',
        kind: 'folder',
        processing: {
          status: 'ready',
          error: null,
          summary: aSummary({ studies: 1, series: 1, instances: 38, other: 1, dicomdirs: 1, unreadable: 1, unreadable_reasons: { 'no SOP Instance UID': 1 } }),
        },
      }),
    ]);
    expect(screen.getByText('40 files: 38 instances, 1 DICOMDIR, 1 unreadable (no SOP Instance UID)')).toBeInTheDocument();
  });

  it('offers to upload a failed file again, saying what failed', async () => {
    const onUpload = vi.fn();
    const { user } = renderTable([aFile({ id: 1, file: 'bad.zip', processing: { status: 'failed', error: 'The archive is damaged', summary: null } }), aFile({ id: 2, file: 'ok.zip' })], onUpload);
    expect(screen.getByText('The upload could not be processed: The archive is damaged')).toBeInTheDocument();
    expect(screen.getAllByRole('button', { name: /again$/ })).toHaveLength(1);
    await user.click(screen.getByRole('button', { name: 'Upload bad.zip again' }));
    // The failed file itself, so that the page can re-pick it and replace its row (issue 36).
    expect(onUpload).toHaveBeenCalledExactlyOnceWith(expect.objectContaining({ id: 1, file: 'bad.zip' }));
  });
});
