import Checkbox from '@mui/material/Checkbox';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import type { TNotificationEvent } from '@portal/contract';
import { ACTION_LABELS, ACTIONS, KINDS } from '../event-words';

interface EventChoicesProps {
  /** Names the grid for assistive technology ('E-mail me about'). */
  label: string;
  value: readonly TNotificationEvent[];
  onChange: (events: TNotificationEvent[]) => void;
  disabled?: boolean;
}

/** The eight events as a grid: what happened (rows) to uploads or deliveries (columns). */
export function EventChoices({ label, value, onChange, disabled = false }: EventChoicesProps) {
  const toggle = (event: TNotificationEvent, on: boolean) => onChange(on ? [...value, event] : value.filter((e) => e !== event));
  return (
    <Table size="small" aria-label={label} sx={{ '& td, & th': { px: 1 } }}>
      <TableHead>
        <TableRow>
          <TableCell>Event</TableCell>
          {KINDS.map(({ label: kindLabel }) => (
            <TableCell key={kindLabel} align="center">
              {kindLabel}
            </TableCell>
          ))}
        </TableRow>
      </TableHead>
      <TableBody>
        {ACTIONS.map((action) => (
          <TableRow key={action}>
            <TableCell component="th" scope="row">
              {ACTION_LABELS[action]}
            </TableCell>
            {KINDS.map(({ kind, label: kindLabel }) => {
              const event: TNotificationEvent = `${kind}.${action}`;
              return (
                <TableCell key={kind} align="center" padding="checkbox">
                  <Checkbox
                    checked={value.includes(event)}
                    disabled={disabled}
                    onChange={(e) => toggle(event, e.target.checked)}
                    slotProps={{ input: { 'aria-label': `${kindLabel}: ${ACTION_LABELS[action]}` } }}
                  />
                </TableCell>
              );
            })}
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}
