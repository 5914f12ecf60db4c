import { REJECT_REASON_LABELS, REVIEW_STATE_LABELS, type TFileReview, type TReviewState } from '@portal/contract';
import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import Typography from '@mui/material/Typography';

const COLOR: Record<TReviewState, 'default' | 'info' | 'success' | 'warning' | 'error'> = {
  awaiting_review: 'info',
  needs_attention: 'warning',
  accepted: 'success',
  rejected: 'error',
  replaced: 'default',
};

/** Why a file was rejected, in one sentence: the reason of the list, then the reviewer's words. */
export function rejectionText(review: TFileReview): string | null {
  if (!review.reason) return null;
  const label = REJECT_REASON_LABELS[review.reason.code];
  return review.reason.text ? `${label}: ${review.reason.text}` : label;
}

/**
 * A file's review beside its processing status (issue 35): the state, why it was rejected, and the
 * rules it failed, each in the rule's own sentence. Nothing while it is processing.
 */
export function ReviewStatus({ review, rules = 'failed' }: { review: TFileReview; rules?: 'failed' | 'none' }) {
  if (review.state === null) return null;
  const rejection = rejectionText(review);
  const failed = rules === 'failed' ? review.rules.filter((r) => !r.ok) : [];
  return (
    <Box sx={{ mt: 0.5 }}>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, flexWrap: 'wrap' }}>
        <Chip size="small" label={REVIEW_STATE_LABELS[review.state]} color={COLOR[review.state]} variant={review.state === 'awaiting_review' ? 'outlined' : 'filled'} />
        {rejection && (
          <Typography variant="caption" color={review.state === 'rejected' ? 'error' : 'text.secondary'}>
            {`Rejected: ${rejection}`}
          </Typography>
        )}
        {review.state === 'replaced' && review.replaced_by !== null && (
          <Typography variant="caption" color="text.secondary">
            Replaced by a newer upload
          </Typography>
        )}
      </Box>
      {failed.map((rule) => (
        <Typography key={rule.rule} variant="caption" color="text.secondary" component="p" sx={{ overflowWrap: 'anywhere' }}>
          {rule.message}
        </Typography>
      ))}
    </Box>
  );
}
