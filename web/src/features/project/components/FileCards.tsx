import type { TProjectFile } from '@portal/contract';
import Checkbox from '@mui/material/Checkbox';
import Typography from '@mui/material/Typography';
import { PhoneCard, PhoneCardList } from '../../../components/PhoneCardList';
import { formatFileSize } from '../../../lib/format';
import { FileActions, type FileActionHandlers } from './FileActions';
import { FileName } from './FileName';

export interface FileRowProps {
  files: TProjectFile[];
  selected: ReadonlyMap<number, string>;
  onToggle: (file: TProjectFile) => void;
  onUploadAgain: (file: TProjectFile) => void;
}

/** Below the `sm` breakpoint each file is a card: name, size, status and its actions in view. */
export function FileCards({ files, selected, onToggle, onUploadAgain, ...actions }: FileRowProps & FileActionHandlers) {
  return (
    <PhoneCardList label="Project files">
      {files.map((file) => (
        <PhoneCard
          key={file.id}
          label={file.file}
          start={<Checkbox checked={selected.has(file.id)} onChange={() => onToggle(file)} slotProps={{ input: { 'aria-label': `Select ${file.file}` } }} sx={{ ml: -1.5, mt: -0.5 }} />}
          actions={<FileActions file={file} {...actions} />}
        >
          <FileName file={file} files={files} onOpen={actions.onOpen} onUploadAgain={onUploadAgain} />
          <Typography variant="body2" color="text.secondary">
            {formatFileSize(file.filesize)}
          </Typography>
        </PhoneCard>
      ))}
    </PhoneCardList>
  );
}

export type { TProjectFile };
