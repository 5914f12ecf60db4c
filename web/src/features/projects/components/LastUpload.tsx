import Typography from '@mui/material/Typography';
import { LocalDate } from '../../../components/LocalDate';

/** A project's newest upload, or words saying it has none. */
export function LastUpload({ value }: { value: string | null }) {
  return value === null ? (
    <Typography component="span" variant="body2" color="text.secondary">
      No uploads
    </Typography>
  ) : (
    <LocalDate value={value} />
  );
}
