import Tooltip from '@mui/material/Tooltip';
import { formatDate, formatDateTime } from '../lib/format';

/**
 * A date in the local date format (spec §2) with its local time on hover: rows changed on the same
 * day would otherwise all read alike. 'N/A' when missing.
 */
export function LocalDate({ value }: { value: string | null | undefined }) {
  const date = formatDate(value);
  if (date === 'N/A' || !value) return <>{date}</>;
  return (
    <Tooltip title={formatDateTime(value)} describeChild>
      <time dateTime={new Date(value).toISOString()}>{date}</time>
    </Tooltip>
  );
}
