import ContentCopy from '@mui/icons-material/ContentCopy';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import DialogContentText from '@mui/material/DialogContentText';
import TextField from '@mui/material/TextField';
import { useEffect, useRef, useState } from 'react';

/** Copies with the Clipboard API where the page may (https, localhost), else through the selected field. */
async function copyText(text: string, field: HTMLInputElement | null): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    field?.select();
    // The older way, for a page served over plain http on a network address.
    return field !== null && document.execCommand('copy');
  }
}

interface ShownOnceSecretProps {
  /** Why it must be copied now, and where it goes. */
  warning: string;
  /** The field's label ('Password link', 'Signing secret', 'Token'). */
  label: string;
  value: string;
  /** The copy button's text ('Copy Link'). */
  copyLabel: string;
  /** What the words say it is when copying was refused ('the link': select the link and copy it yourself). */
  noun: string;
}

/**
 * A secret the server answers once and keeps only hashed or sealed (a password link, a webhook's
 * signing secret, an API token): the warning, the value read-only and selectable, a copy button
 * and what copying did. The copy button takes the focus when it appears, as the next step, so Esc
 * still closes the dialog around it.
 */
export function ShownOnceSecret({ warning, label, value, copyLabel, noun }: ShownOnceSecretProps) {
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  const field = useRef<HTMLInputElement>(null);
  const copyButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    copyButton.current?.focus();
  }, []);

  return (
    <>
      <Alert severity="warning" sx={{ mb: 2 }}>
        {warning}
      </Alert>
      <Box sx={{ display: 'flex', gap: 1, alignItems: 'flex-start', flexDirection: { xs: 'column', sm: 'row' } }}>
        <TextField
          label={label}
          value={value}
          inputRef={field}
          fullWidth
          multiline
          slotProps={{ htmlInput: { readOnly: true, spellCheck: false, style: { fontFamily: 'monospace', wordBreak: 'break-all' } } }}
          onFocus={(event) => event.target.select()}
        />
        <Button
          variant="contained"
          startIcon={<ContentCopy />}
          ref={copyButton}
          onClick={() => void copyText(value, field.current).then((ok) => setCopied(ok ? 'yes' : 'failed'))}
          sx={{ flexShrink: 0, mt: { sm: 1 } }}
        >
          {copyLabel}
        </Button>
      </Box>
      <Box role="status" aria-live="polite" sx={{ minHeight: 24, mt: 1 }}>
        {copied === 'yes' && <DialogContentText>Copied to the clipboard.</DialogContentText>}
        {copied === 'failed' && <DialogContentText>{`The browser did not allow copying: select ${noun} and copy it yourself.`}</DialogContentText>}
      </Box>
    </>
  );
}
