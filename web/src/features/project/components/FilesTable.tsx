import type { TProjectFile } from '@portal/contract';
import CloudUpload from '@mui/icons-material/CloudUpload';
import InsertDriveFileOutlined from '@mui/icons-material/InsertDriveFileOutlined';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import FormControlLabel from '@mui/material/FormControlLabel';
import type { Theme } from '@mui/material/styles';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import useMediaQuery from '@mui/material/useMediaQuery';
import { useEffect, useRef } from 'react';
import type { FileSort } from '../../../api/get-project-files';
import { SortableHeader } from '../../../components/SortableHeader';
import { TablePager } from '../../../components/TablePager';
import { formatDate, formatFileSize } from '../../../lib/format';
import { FileActions, type FileActionHandlers } from './FileActions';
import { FileCards } from './FileCards';
import { FileName } from './FileName';
import { FilesToolbar } from './FilesToolbar';
import { SelectAllBanner } from './SelectAllBanner';
import type { FilesQuery } from './use-files-query';

export const FILE_COLUMNS = ['File', 'Size', 'Date Created', 'Date Updated', 'Actions'] as const;
const SORT_OF: Record<(typeof FILE_COLUMNS)[number], FileSort | null> = {
  File: 'file',
  Size: 'filesize',
  'Date Created': 'created_at',
  'Date Updated': 'updated_at',
  Actions: null,
};

interface FilesTableProps extends FileActionHandlers {
  /** This page's files, as the server answered them. */
  files: TProjectFile[];
  /** Every file matching the search and filter. */
  total: number;
  query: FilesQuery;
  /** Selected files by id, with their names (the bulk-delete dialog lists them). */
  selected: ReadonlyMap<number, string>;
  onSelectionChange: (selected: Map<number, string>) => void;
  selectingAll: boolean;
  onSelectAllMatching: () => void;
  onUpload: () => void;
  /** 'Upload again' on a failed file: pick that file again, and let it replace the failed row. */
  onUploadAgain: (file: TProjectFile) => void;
}

export function FilesTable(props: FilesTableProps) {
  const { files, total, query, selected, onSelectionChange, selectingAll, onSelectAllMatching, onUpload, onUploadAgain, ...actions } = props;
  const phone = useMediaQuery((theme: Theme) => theme.breakpoints.down('sm'), { noSsr: true });
  const pageSelected = files.length > 0 && files.every((f) => selected.has(f.id));
  const someSelected = !pageSelected && files.some((f) => selected.has(f.id));
  // MUI marks a partial selection with aria-checked on a native checkbox, which assistive
  // technology may ignore; the native indeterminate state is what browsers announce.
  const selectAllRef = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (selectAllRef.current) selectAllRef.current.indeterminate = someSelected;
  }, [someSelected, files.length, phone]);

  const toggle = (file: TProjectFile) => {
    const next = new Map(selected);
    if (next.has(file.id)) next.delete(file.id);
    else next.set(file.id, file.file);
    onSelectionChange(next);
  };
  // The header checkbox selects (or clears) this page's rows only.
  const togglePage = () => {
    const next = new Map(selected);
    for (const file of files) {
      if (pageSelected) next.delete(file.id);
      else next.set(file.id, file.file);
    }
    onSelectionChange(next);
  };

  if (total === 0 && !query.filtered) {
    return (
      <Box sx={{ textAlign: 'center', py: 6 }}>
        <InsertDriveFileOutlined sx={{ fontSize: 48, color: 'text.disabled' }} aria-hidden="true" />
        <Typography variant="h6" component="p" sx={{ mb: 2 }}>
          No files found
        </Typography>
        <Button variant="contained" startIcon={<CloudUpload />} onClick={onUpload}>
          Upload Files
        </Button>
      </Box>
    );
  }

  const selectPage = (
    <Checkbox
      checked={pageSelected}
      indeterminate={someSelected}
      onChange={togglePage}
      slotProps={{ input: { ref: selectAllRef, 'aria-label': 'Select all files', 'aria-checked': undefined } }}
    />
  );
  const rows = { files, selected, onToggle: toggle, onUploadAgain };

  return (
    <>
      <FilesToolbar query={query} />
      {pageSelected && total > files.length && (
        <SelectAllBanner
          pageCount={files.length}
          total={total}
          selectedCount={selected.size}
          selecting={selectingAll}
          onSelectAll={onSelectAllMatching}
          onClear={() => onSelectionChange(new Map())}
        />
      )}
      {files.length === 0 ? (
        <Typography sx={{ px: 2, py: 4, textAlign: 'center' }} color="text.secondary">
          No files match the search or the status filter. Change or clear them to see more files.
        </Typography>
      ) : phone ? (
        <>
          <FormControlLabel control={selectPage} label="Select this page" sx={{ px: 2, ml: 0 }} />
          <FileCards {...rows} {...actions} />
        </>
      ) : (
        <TableContainer>
          <Table aria-label="Project files" sx={{ minWidth: 760 }}>
            <TableHead>
              <TableRow>
                <TableCell padding="checkbox">{selectPage}</TableCell>
                {FILE_COLUMNS.map((column) => (
                  <SortableHeader
                    key={column}
                    label={column}
                    sortKey={SORT_OF[column]}
                    current={query.sort}
                    onSort={query.sortBy}
                    align={column === 'Actions' ? 'right' : 'left'}
                  />
                ))}
              </TableRow>
            </TableHead>
            <TableBody>
              {files.map((file) => (
                <TableRow key={file.id} hover selected={selected.has(file.id)}>
                  <TableCell padding="checkbox">
                    <Checkbox checked={selected.has(file.id)} onChange={() => toggle(file)} slotProps={{ input: { 'aria-label': `Select ${file.file}` } }} />
                  </TableCell>
                  <TableCell sx={{ maxWidth: 420 }}>
                    <FileName file={file} files={files} onOpen={actions.onOpen} onUploadAgain={onUploadAgain} />
                  </TableCell>
                  <TableCell sx={{ whiteSpace: 'nowrap' }}>{formatFileSize(file.filesize)}</TableCell>
                  <TableCell>{formatDate(file.created_at)}</TableCell>
                  <TableCell>{formatDate(file.updated_at)}</TableCell>
                  <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                    <FileActions file={file} {...actions} />
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </TableContainer>
      )}
      <TablePager count={total} pagination={query.pagination} />
    </>
  );
}
