import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';

interface SelectAllBannerProps {
  pageCount: number;
  total: number;
  selectedCount: number;
  selecting: boolean;
  onSelectAll: () => void;
  onClear: () => void;
}

/**
 * The header checkbox selects the page only; every file matching the search is a second, explicit
 * step, so a delete never reaches files the user did not see offered.
 */
export function SelectAllBanner({ pageCount, total, selectedCount, selecting, onSelectAll, onClear }: SelectAllBannerProps) {
  const all = selectedCount >= total;
  return (
    <Alert
      severity="info"
      icon={false}
      sx={{ mx: 2, mb: 1, '& .MuiAlert-message': { display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: 1 } }}
    >
      <span>{all ? `All ${total} files are selected.` : `All ${pageCount} files on this page are selected.`}</span>
      {all ? (
        <Button size="small" onClick={onClear}>
          Clear selection
        </Button>
      ) : (
        <Button size="small" onClick={onSelectAll} disabled={selecting}>
          {selecting ? 'Selecting…' : `Select all ${total} files`}
        </Button>
      )}
    </Alert>
  );
}
