import VpnKey from '@mui/icons-material/VpnKey';
import Button from '@mui/material/Button';
import { useState } from 'react';
import { CompanySsoDialog } from './CompanySsoDialog';

/** Opens a company's single sign-on settings (SysAdmin); for a row of the companies screen. `companyName` titles the dialog. */
export function CompanySsoButton({ companyId, companyName }: { companyId: number; companyName?: string }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button size="small" startIcon={<VpnKey />} onClick={() => setOpen(true)}>
        Single sign-on
      </Button>
      {open && <CompanySsoDialog companyId={companyId} companyName={companyName} open={open} onClose={() => setOpen(false)} />}
    </>
  );
}
