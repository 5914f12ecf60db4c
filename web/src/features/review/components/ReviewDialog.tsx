import { REJECT_REASON_LABELS, REJECT_REASONS, type TProjectFile, type TRejectReason } from '@portal/contract';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import FormControlLabel from '@mui/material/FormControlLabel';
import MenuItem from '@mui/material/MenuItem';
import Radio from '@mui/material/Radio';
import RadioGroup from '@mui/material/RadioGroup';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import useMediaQuery from '@mui/material/useMediaQuery';
import type { Theme } from '@mui/material/styles';
import { useId, useState, type FormEvent } from 'react';
import { useNotify } from '../../../components/use-notify';
import { formatUserError } from '../../../lib/error-mapping';
import { useDecide } from '../api/review-api';
import { RuleOutcomes } from './RuleOutcomes';

interface ReviewDialogProps {
  file: Pick<TProjectFile, 'id' | 'file' | 'review'>;
  onClose: () => void;
}

/** A SysUser or SysAdmin accepts or rejects an upload, a rejection with a reason of the list and free text. */
export default function ReviewDialog({ file, onClose }: ReviewDialogProps) {
  const titleId = useId();
  const phone = useMediaQuery((theme: Theme) => theme.breakpoints.down('sm'), { noSsr: true });
  const decide = useDecide();
  const notify = useNotify();
  const [decision, setDecision] = useState<'accept' | 'reject'>(file.review.state === 'needs_attention' ? 'reject' : 'accept');
  const [code, setCode] = useState<TRejectReason | ''>(file.review.reason?.code ?? '');
  const [text, setText] = useState(file.review.reason?.text ?? '');
  const [error, setError] = useState<string | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (decision === 'reject' && code === '') {
      setError('Choose a reason for the rejection: the sender reads it.');
      return;
    }
    setError(null);
    try {
      await decide.mutateAsync({ fileId: file.id, body: decision === 'accept' ? { decision } : { decision, reason: { code: code as TRejectReason, text: text.trim() } } });
      notify.success(decision === 'accept' ? `${file.file} accepted` : `${file.file} rejected`);
      onClose();
    } catch (err) {
      setError(formatUserError(err));
    }
  };

  return (
    <Dialog open onClose={decide.isPending ? undefined : onClose} fullScreen={phone} fullWidth maxWidth="sm" aria-labelledby={titleId}>
      <form onSubmit={(event) => void submit(event)} noValidate>
        <DialogTitle id={titleId} sx={{ overflowWrap: 'anywhere' }}>{`Review ${file.file}`}</DialogTitle>
        <DialogContent>
          <RuleOutcomes rules={file.review.rules} />
          <RadioGroup row value={decision} onChange={(event) => setDecision(event.target.value as 'accept' | 'reject')} aria-label="Decision" sx={{ my: 1 }}>
            <FormControlLabel value="accept" control={<Radio />} label="Accept" />
            <FormControlLabel value="reject" control={<Radio />} label="Reject" />
          </RadioGroup>
          {decision === 'reject' && (
            <>
              <TextField select fullWidth required label="Reason" value={code} onChange={(event) => setCode(event.target.value as TRejectReason)} sx={{ mb: 2 }}>
                {REJECT_REASONS.map((reason) => (
                  <MenuItem key={reason} value={reason}>
                    {REJECT_REASON_LABELS[reason]}
                  </MenuItem>
                ))}
              </TextField>
              <TextField
                fullWidth
                multiline
                minRows={2}
                label="What the sender should do"
                value={text}
                onChange={(event) => setText(event.target.value)}
                slotProps={{ htmlInput: { maxLength: 1000 } }}
              />
              <Typography variant="caption" color="text.secondary">
                The sender sees the reason and these words beside the upload, and may send a new upload that replaces it.
              </Typography>
            </>
          )}
          {error && (
            <Alert severity="error" sx={{ mt: 2 }}>
              {error}
            </Alert>
          )}
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose} disabled={decide.isPending}>
            Cancel
          </Button>
          <Button type="submit" variant="contained" color={decision === 'reject' ? 'error' : 'primary'} disabled={decide.isPending}>
            {decision === 'reject' ? 'Reject' : 'Accept'}
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
}
