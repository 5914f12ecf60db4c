import Box from '@mui/material/Box';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import { ApiTokensList } from './ApiTokensList';

interface ApiTokensPanelProps {
  /** A SysAdmin's view: everyone's tokens, each with its owner's company. */
  sysAdmin: boolean;
  companyName: (id: number) => string;
}

/** The administration's 'API tokens' tab: the tokens a CompanyAdmin (their company's users') or a SysAdmin (everyone's) may revoke. */
export function ApiTokensPanel({ sysAdmin, companyName }: ApiTokensPanelProps) {
  return (
    <Paper variant="outlined">
      <Box sx={{ p: 2 }}>
        <Typography variant="h6" component="h2">
          API tokens
        </Typography>
        <Typography variant="body2" color="text.secondary">
          {sysAdmin
            ? 'Every user’s personal API tokens. Revoke one that leaked or is no longer needed: it stops working at once.'
            : 'The personal API tokens of your company’s users. Revoke one that leaked or is no longer needed: it stops working at once.'}
        </Typography>
      </Box>
      <ApiTokensList owner="all" empty="No API tokens are in use." {...(sysAdmin ? { companyName } : {})} />
    </Paper>
  );
}
