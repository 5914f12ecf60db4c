import VpnKey from '@mui/icons-material/VpnKey';
import IconButton from '@mui/material/IconButton';
import Tooltip from '@mui/material/Tooltip';
import { useState } from 'react';
import { CompanySsoDialog } from './CompanySsoDialog';

/**
 * Opens a company's single sign-on settings (SysAdmin). An icon like the other actions of a
 * company's row; its name says whose settings it opens, since every row has one.
 */
export function CompanySsoButton({ companyId, companyName }: { companyId: number; companyName?: string }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Tooltip title="Single sign-on">
        <IconButton
          aria-label={companyName === undefined ? 'Single sign-on' : `Single sign-on of ${companyName}`}
          onClick={() => setOpen(true)}
        >
          <VpnKey />
        </IconButton>
      </Tooltip>
      {open && <CompanySsoDialog companyId={companyId} companyName={companyName} open={open} onClose={() => setOpen(false)} />}
    </>
  );
}
