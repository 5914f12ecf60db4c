import type { TCompany } from '@portal/contract';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { storageUsageText } from '../../../components/StorageUsageBar';
import { useNotify } from '../../../components/use-notify';
import { adminErrorText } from '../admin-errors';
import { useSetCompanyQuota } from '../api/save-company';
import { FormDialog } from './FormDialog';

const GB = 1024 ** 3;
export const QUOTA_INVALID = 'Enter the allowance in GB, such as 50 or 0.5, or leave it empty for no limit';

/** The allowance as typed: GB as the sizes are shown (steps of 1024); empty is no limit; undefined when unreadable. */
export function parseQuotaGb(text: string): number | null | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  if (!/^\d+(\.\d+)?$/.test(trimmed)) return undefined;
  const bytes = Math.round(Number(trimmed) * GB);
  return Number.isSafeInteger(bytes) ? bytes : undefined;
}

const asGb = (bytes: number | null) => (bytes === null ? '' : String(Number((bytes / GB).toFixed(3))));

interface CompanyQuotaDialogProps {
  company: TCompany;
  onClose: () => void;
}

/** Sets how much a company may store (SysAdmin); uploads past it are refused with the reason. */
export function CompanyQuotaDialog({ company, onClose }: CompanyQuotaDialogProps) {
  const save = useSetCompanyQuota();
  const notify = useNotify();
  const [text, setText] = useState(asGb(company.quota_bytes));
  const [invalid, setInvalid] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const submit = async () => {
    const quotaBytes = parseQuotaGb(text);
    if (quotaBytes === undefined) {
      setInvalid(QUOTA_INVALID);
      return;
    }
    setError(null);
    try {
      await save.mutateAsync({ id: company.id, quotaBytes });
      notify.success('Storage allowance saved');
      onClose();
    } catch (failure) {
      setError(adminErrorText(failure));
    }
  };

  return (
    <FormDialog
      open
      title={`Storage Allowance of ${company.companyname}`}
      submitLabel="Save"
      busy={save.isPending}
      busyMessage="Saving storage allowance..."
      error={error}
      onSubmit={() => void submit()}
      onClose={onClose}
    >
      <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
        {`Now: ${storageUsageText(company.used_bytes, company.quota_bytes)}. Deleted files do not count.`}
      </Typography>
      <TextField
        label="Allowance (GB)"
        placeholder="No limit"
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          setInvalid(null);
        }}
        disabled={save.isPending}
        error={Boolean(invalid)}
        helperText={invalid ?? 'Leave empty for no limit'}
        autoFocus
        fullWidth
        margin="dense"
        slotProps={{ htmlInput: { inputMode: 'decimal' } }}
      />
    </FormDialog>
  );
}
