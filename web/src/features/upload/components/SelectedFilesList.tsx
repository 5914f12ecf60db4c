import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemIcon from '@mui/material/ListItemIcon';
import ListItemText from '@mui/material/ListItemText';
import Typography from '@mui/material/Typography';
import { formatFileSize } from '../../../lib/format';

export interface PickedFile {
  key: string;
  path: string;
  file: File;
  checked: boolean;
}

interface SelectedFilesListProps {
  items: PickedFile[];
  disabled: boolean;
  onChange: (items: PickedFile[]) => void;
}

export function SelectedFilesList({ items, disabled, onChange }: SelectedFilesListProps) {
  const checkedCount = items.filter((i) => i.checked).length;
  const setAll = (checked: boolean) => onChange(items.map((i) => ({ ...i, checked })));
  return (
    <Box>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, flexWrap: 'wrap' }}>
        <Typography variant="subtitle2" component="h3" sx={{ flexGrow: 1 }}>{`Selected files (${checkedCount} of ${items.length})`}</Typography>
        <Button size="small" onClick={() => setAll(true)} disabled={disabled || items.length === 0}>
          Select All
        </Button>
        <Button size="small" onClick={() => setAll(false)} disabled={disabled || items.length === 0}>
          Clear
        </Button>
      </Box>
      <List dense aria-label="Files to upload" sx={{ maxHeight: 260, overflow: 'auto', border: 1, borderColor: 'divider', borderRadius: 1 }}>
        {items.map((item) => (
          <ListItem key={item.key} disablePadding sx={{ px: 1 }}>
            <ListItemIcon sx={{ minWidth: 36 }}>
              <Checkbox
                edge="start"
                checked={item.checked}
                disabled={disabled}
                onChange={(e) => onChange(items.map((i) => (i.key === item.key ? { ...i, checked: e.target.checked } : i)))}
                slotProps={{ input: { 'aria-label': item.path } }}
              />
            </ListItemIcon>
            <ListItemText primary={item.path} secondary={formatFileSize(item.file.size)} slotProps={{ primary: { sx: { wordBreak: 'break-all' } } }} />
          </ListItem>
        ))}
      </List>
    </Box>
  );
}
