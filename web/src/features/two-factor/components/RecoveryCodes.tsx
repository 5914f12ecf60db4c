import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Typography from '@mui/material/Typography';
import { useState } from 'react';

/** The ten recovery codes, shown this once, with a way to copy them. */
export function RecoveryCodes({ codes }: { codes: string[] }) {
  const [copied, setCopied] = useState(false);
  const copy = () => {
    void navigator.clipboard
      ?.writeText(codes.join('\n'))
      .then(() => setCopied(true))
      .catch(() => setCopied(false));
  };
  return (
    <Box>
      <Alert severity="warning" sx={{ mb: 2 }}>
        Keep these recovery codes somewhere safe, away from your phone. Each signs you in once if you lose your authenticator app. They are shown only
        now.
      </Alert>
      <Box
        component="ol"
        aria-label="Recovery codes"
        sx={{
          display: 'grid',
          gridTemplateColumns: { xs: '1fr 1fr', sm: '1fr 1fr' },
          gap: 1,
          listStyle: 'none',
          p: 2,
          m: 0,
          bgcolor: 'action.hover',
          borderRadius: 1,
          fontFamily: 'monospace',
          fontSize: '1.05rem',
        }}
      >
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </Box>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 2, mt: 1 }}>
        <Button onClick={copy}>Copy the codes</Button>
        {copied && (
          <Typography variant="body2" color="text.secondary" role="status">
            Copied
          </Typography>
        )}
      </Box>
    </Box>
  );
}
