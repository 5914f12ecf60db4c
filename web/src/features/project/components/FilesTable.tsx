import type { TProjectFile } from '@portal/contract';
import CloudUpload from '@mui/icons-material/CloudUpload';
import FolderOutlined from '@mui/icons-material/FolderOutlined';
import DeleteOutline from '@mui/icons-material/DeleteOutlined';
import Download from '@mui/icons-material/Download';
import InsertDriveFileOutlined from '@mui/icons-material/InsertDriveFileOutlined';
import ListAlt from '@mui/icons-material/ListAlt';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import IconButton from '@mui/material/IconButton';
import Link from '@mui/material/Link';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import { useEffect, useRef } from 'react';
import { TablePager } from '../../../components/TablePager';
import { usePagination } from '../../../components/use-pagination';
import { formatDate, formatFileSize } from '../../../lib/format';
import { DuplicateChip } from './DuplicateChip';
import { ProcessingStatus } from './ProcessingStatus';

export const FILE_COLUMNS = ['File', 'Size', 'Date Created', 'Date Updated', 'Actions'] as const;

interface FilesTableProps {
  files: TProjectFile[];
  selected: ReadonlySet<number>;
  onSelectionChange: (selected: Set<number>) => void;
  onOpen: (file: TProjectFile) => void;
  onDownload: (file: TProjectFile) => void;
  onDelete: (file: TProjectFile) => void;
  onUpload: () => void;
}

export function FilesTable({ files, selected, onSelectionChange, onOpen, onDownload, onDelete, onUpload }: FilesTableProps) {
  const pagination = usePagination();
  const allSelected = files.length > 0 && files.every((f) => selected.has(f.id));
  const someSelected = !allSelected && files.some((f) => selected.has(f.id));
  // MUI marks a partial selection with aria-checked on a native checkbox, which assistive
  // technology may ignore; the native indeterminate state is what browsers announce.
  const selectAllRef = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (selectAllRef.current) selectAllRef.current.indeterminate = someSelected;
  }, [someSelected, files.length]);

  const toggle = (id: number) => {
    const next = new Set(selected);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    onSelectionChange(next);
  };

  if (files.length === 0) {
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

  return (
    <>
      <TableContainer>
        <Table aria-label="Project files" sx={{ minWidth: 760 }}>
          <TableHead>
            <TableRow>
              <TableCell padding="checkbox">
                <Checkbox
                  checked={allSelected}
                  indeterminate={someSelected}
                  onChange={() => onSelectionChange(allSelected ? new Set() : new Set(files.map((f) => f.id)))}
                  slotProps={{ input: { ref: selectAllRef, 'aria-label': 'Select all files', 'aria-checked': undefined } }}
                />
              </TableCell>
              {FILE_COLUMNS.map((column) => (
                <TableCell key={column} align={column === 'Actions' ? 'right' : 'left'}>
                  {column}
                </TableCell>
              ))}
            </TableRow>
          </TableHead>
          <TableBody>
            {pagination.slice(files).map((file) => (
              <TableRow key={file.id} hover selected={selected.has(file.id)}>
                <TableCell padding="checkbox">
                  <Checkbox
                    checked={selected.has(file.id)}
                    onChange={() => toggle(file.id)}
                    slotProps={{ input: { 'aria-label': `Select ${file.file}` } }}
                  />
                </TableCell>
                <TableCell sx={{ maxWidth: 420 }}>
                  {/* A delivery (a folder sent as one unit) reads as a folder; it downloads as a zip. */}
                  {file.kind === 'folder' && <FolderOutlined titleAccess="Folder" aria-label="Folder" fontSize="small" color="action" sx={{ verticalAlign: 'middle', mr: 0.5 }} />}
                  <Link component="button" type="button" underline="hover" onClick={() => onOpen(file)} sx={{ fontWeight: 600, textAlign: 'left', wordBreak: 'break-all' }}>
                    {file.file}
                  </Link>
                  <ProcessingStatus processing={file.processing} />
                  <DuplicateChip file={file} files={files} />
                </TableCell>
                <TableCell sx={{ whiteSpace: 'nowrap' }}>{formatFileSize(file.filesize)}</TableCell>
                <TableCell>{formatDate(file.created_at)}</TableCell>
                <TableCell>{formatDate(file.updated_at)}</TableCell>
                <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                  <Tooltip title="Contents">
                    <IconButton aria-label={`View contents of ${file.file}`} onClick={() => onOpen(file)}>
                      <ListAlt />
                    </IconButton>
                  </Tooltip>
                  <Tooltip title="Download">
                    <IconButton aria-label={`Download ${file.file}`} onClick={() => onDownload(file)} color="primary">
                      <Download />
                    </IconButton>
                  </Tooltip>
                  <Tooltip title="Delete">
                    <IconButton aria-label={`Delete ${file.file}`} onClick={() => onDelete(file)} color="error">
                      <DeleteOutline />
                    </IconButton>
                  </Tooltip>
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </TableContainer>
      <TablePager count={files.length} pagination={pagination} />
    </>
  );
}
