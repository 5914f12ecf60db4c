import Box from '@mui/material/Box';
import MenuItem from '@mui/material/MenuItem';
import TextField from '@mui/material/TextField';
import type { AuditFilters } from '../api/get-audit';
import { AUDIT_ACTIONS } from '../audit-actions';

interface AuditFilterFieldsProps {
  filters: AuditFilters;
  onChange: (filters: AuditFilters) => void;
}

/** From and To are days of the user's own calendar, both included; the rest narrows by who, what and which object. */
export function AuditFilterFields({ filters, onChange }: AuditFilterFieldsProps) {
  const set = (key: keyof AuditFilters) => (event: { target: { value: string } }) => onChange({ ...filters, [key]: event.target.value });
  const wide = { width: { xs: '100%', sm: 200 } };
  return (
    <Box role="group" aria-label="Filter the audit trail" sx={{ display: 'flex', flexWrap: 'wrap', gap: 1, width: '100%' }}>
      <TextField size="small" type="date" label="From" value={filters.from} onChange={set('from')} sx={{ width: { xs: 'calc(50% - 4px)', sm: 160 } }} slotProps={{ inputLabel: { shrink: true } }} />
      <TextField size="small" type="date" label="To" value={filters.to} onChange={set('to')} sx={{ width: { xs: 'calc(50% - 4px)', sm: 160 } }} slotProps={{ inputLabel: { shrink: true } }} />
      <TextField
        size="small"
        label="Actor"
        placeholder="Username or user id"
        value={filters.actor}
        onChange={set('actor')}
        sx={wide}
        slotProps={{ htmlInput: { maxLength: 255 } }}
      />
      <TextField select size="small" label="Action" value={filters.action} onChange={set('action')} sx={{ width: { xs: '100%', sm: 240 } }} slotProps={{ select: { displayEmpty: true }, inputLabel: { shrink: true } }}>
        <MenuItem value="">Any action</MenuItem>
        {AUDIT_ACTIONS.map((action) => (
          <MenuItem key={action.code} value={action.code} sx={action.code.endsWith('.') ? { fontWeight: 600 } : { pl: 4 }}>
            {action.label}
          </MenuItem>
        ))}
      </TextField>
      <TextField
        size="small"
        label="Object"
        placeholder="user, file/12"
        value={filters.object}
        onChange={set('object')}
        sx={wide}
        slotProps={{ htmlInput: { maxLength: 300 } }}
      />
    </Box>
  );
}
