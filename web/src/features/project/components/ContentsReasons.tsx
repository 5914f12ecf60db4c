import InfoOutlined from '@mui/icons-material/InfoOutlined';
import WarningAmberOutlined from '@mui/icons-material/WarningAmberOutlined';
import Box from '@mui/material/Box';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemIcon from '@mui/material/ListItemIcon';
import ListItemText from '@mui/material/ListItemText';
import Typography from '@mui/material/Typography';
import type { ContentsReason } from '../contents-reasons';

/** The reasons an upload's entries are not all instances, each with its count, before any list. */
export function ContentsReasons({ reasons }: { reasons: ContentsReason[] }) {
  if (reasons.length === 0) return null;
  return (
    <Box component="section" aria-labelledby="contents-reasons-title" sx={{ mb: 2 }}>
      <Typography id="contents-reasons-title" variant="subtitle1" component="h3" sx={{ fontWeight: 600 }}>
        Why some entries are set apart
      </Typography>
      <List dense disablePadding aria-labelledby="contents-reasons-title">
        {reasons.map((reason) => (
          <ListItem key={reason.key} disableGutters alignItems="flex-start">
            <ListItemIcon sx={{ minWidth: 32, mt: 0.5 }}>
              {reason.severity === 'warning' ? (
                <WarningAmberOutlined fontSize="small" color="warning" aria-hidden="true" />
              ) : (
                <InfoOutlined fontSize="small" color="info" aria-hidden="true" />
              )}
            </ListItemIcon>
            <ListItemText
              primary={reason.text}
              secondary={reason.detail}
              slotProps={{ primary: { sx: { fontWeight: 500, overflowWrap: 'anywhere' } } }}
            />
          </ListItem>
        ))}
      </List>
    </Box>
  );
}
