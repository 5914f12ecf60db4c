import VpnKey from '@mui/icons-material/VpnKey';
import Button from '@mui/material/Button';
import { useState } from 'react';
import { CompanySsoDialog } from './CompanySsoDialog';

/** Opens a company's single sign-on settings (SysAdmin); for a row of the companies screen. */
export function CompanySsoButton({ companyId }: { companyId: number }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button size="small" startIcon={<VpnKey />} onClick={() => setOpen(true)}>
        Single sign-on
      </Button>
      {open && <CompanySsoDialog companyId={companyId} open={open} onClose={() => setOpen(false)} />}
    </>
  );
}
