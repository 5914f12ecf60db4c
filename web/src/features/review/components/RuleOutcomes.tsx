import type { TRuleOutcome } from '@portal/contract';
import CheckCircleOutlined from '@mui/icons-material/CheckCircleOutlined';
import WarningAmberOutlined from '@mui/icons-material/WarningAmberOutlined';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemIcon from '@mui/material/ListItemIcon';
import ListItemText from '@mui/material/ListItemText';
import Typography from '@mui/material/Typography';

/** Each rule of the project as it judged the file: passed or failed, in its sentence. */
export function RuleOutcomes({ rules }: { rules: TRuleOutcome[] }) {
  if (rules.length === 0) return <Typography color="text.secondary">No rule was checked: the file is still being processed.</Typography>;
  return (
    <List dense disablePadding aria-label="Arrival rules">
      {rules.map((rule) => (
        <ListItem key={rule.rule} disableGutters alignItems="flex-start">
          <ListItemIcon sx={{ minWidth: 32, mt: 0.5 }}>
            {rule.ok ? <CheckCircleOutlined color="success" titleAccess="Passed" /> : <WarningAmberOutlined color="warning" titleAccess="Failed" />}
          </ListItemIcon>
          <ListItemText primary={rule.message} slotProps={{ primary: { sx: { overflowWrap: 'anywhere' } } }} />
        </ListItem>
      ))}
    </List>
  );
}
