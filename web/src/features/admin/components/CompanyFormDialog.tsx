import type { TCompany } from '@portal/contract';
import TextField from '@mui/material/TextField';
import { useState } from 'react';
import { useNotify } from '../../../components/use-notify';
import { adminErrorText } from '../admin-errors';
import { useSaveCompany } from '../api/save-company';
import { FormDialog } from './FormDialog';

export const COMPANY_NAME_REQUIRED = 'The company name is required';

interface CompanyFormDialogProps {
  /** null: a new company; otherwise the one renamed. */
  company: TCompany | null;
  onClose: () => void;
}

/** Creates a company or renames one (SysAdmin); mounted per opening, so it starts from the company's name. */
export function CompanyFormDialog({ company, onClose }: CompanyFormDialogProps) {
  const save = useSaveCompany();
  const notify = useNotify();
  const [name, setName] = useState(company?.companyname ?? '');
  const [invalid, setInvalid] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const submit = async () => {
    const companyname = name.trim();
    if (!companyname) {
      setInvalid(COMPANY_NAME_REQUIRED);
      return;
    }
    setError(null);
    try {
      await save.mutateAsync({ id: company?.id, companyname });
      notify.success(company ? 'Company renamed' : 'Company created');
      onClose();
    } catch (failure) {
      setError(adminErrorText(failure));
    }
  };

  return (
    <FormDialog
      open
      title={company ? 'Rename Company' : 'Add Company'}
      submitLabel="Save"
      busy={save.isPending}
      busyMessage={company ? 'Saving company...' : 'Creating company...'}
      error={error}
      onSubmit={() => void submit()}
      onClose={onClose}
    >
      <TextField
        label="Company Name"
        placeholder="Eg: Northside Imaging Centre"
        value={name}
        onChange={(e) => {
          setName(e.target.value);
          setInvalid(null);
        }}
        disabled={save.isPending}
        error={Boolean(invalid)}
        helperText={invalid ?? ' '}
        autoFocus
        fullWidth
        margin="dense"
        slotProps={{ htmlInput: { maxLength: 255 } }}
      />
    </FormDialog>
  );
}
