import Add from '@mui/icons-material/Add';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import useMediaQuery from '@mui/material/useMediaQuery';
import type { Theme } from '@mui/material/styles';
import { useId, useState } from 'react';
import { ApiTokensList } from './ApiTokensList';
import { CreateApiTokenDialog } from './CreateApiTokenDialog';

/** 'API tokens' in the avatar menu: one's own tokens for scripts, made, listed and revoked here. */
export default function ApiTokensDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const titleId = useId();
  const phone = useMediaQuery((theme: Theme) => theme.breakpoints.down('sm'), { noSsr: true });
  const [creating, setCreating] = useState(false);
  return (
    <Dialog open={open} onClose={onClose} aria-labelledby={titleId} maxWidth="lg" fullWidth fullScreen={phone}>
      <DialogTitle id={titleId}>API tokens</DialogTitle>
      <DialogContent sx={{ px: { xs: 0, sm: 3 } }}>
        <Box sx={{ display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: 2, px: { xs: 3, sm: 0 }, mb: 1 }}>
          <DialogContentText sx={{ flex: '1 1 320px' }}>
            A token lets a script (a PACS export, the command-line uploader) act as you without your password: it reads, or reads and uploads, until it expires or you revoke it. It never reaches the administration or your password.
          </DialogContentText>
          <Button variant="contained" startIcon={<Add />} onClick={() => setCreating(true)}>
            New Token
          </Button>
        </Box>
        <ApiTokensList owner="me" empty="No tokens yet. Make one for each script, so that each can be revoked on its own." />
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Close</Button>
      </DialogActions>
      {creating && <CreateApiTokenDialog onClose={() => setCreating(false)} />}
    </Dialog>
  );
}
