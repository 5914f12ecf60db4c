import CheckCircle from '@mui/icons-material/CheckCircle';
import RadioButtonUnchecked from '@mui/icons-material/RadioButtonUnchecked';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemIcon from '@mui/material/ListItemIcon';
import ListItemText from '@mui/material/ListItemText';
import { checkPassword, PASSWORD_RULES } from '../password-rules';

export function PasswordChecklist({ password }: { password: string }) {
  const checks = checkPassword(password);
  return (
    <List dense aria-label="Password requirements" disablePadding>
      {PASSWORD_RULES.map(({ key, label }) => (
        <ListItem key={key} disableGutters sx={{ py: 0 }}>
          <ListItemIcon sx={{ minWidth: 30 }}>
            {checks[key] ? (
              <CheckCircle fontSize="small" color="success" titleAccess="met" />
            ) : (
              <RadioButtonUnchecked fontSize="small" color="disabled" titleAccess="not met" />
            )}
          </ListItemIcon>
          <ListItemText
            primary={label}
            slotProps={{ primary: { variant: 'body2', color: checks[key] ? 'success.main' : 'text.secondary' } }}
          />
        </ListItem>
      ))}
    </List>
  );
}
