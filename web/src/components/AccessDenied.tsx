import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Link from '@mui/material/Link';
import { Link as RouterLink } from 'react-router';

/** Spec §8's 403 wording: what a signed-in user sees on a page their role may not open. */
export const ACCESS_DENIED = 'Access Denied: You do not have permission to perform this action';

export function AccessDenied() {
  return (
    <Box>
      <Alert severity="error" sx={{ mb: 2 }}>
        {ACCESS_DENIED}
      </Alert>
      <Link component={RouterLink} to="/home" underline="hover">
        Back to Projects
      </Link>
    </Box>
  );
}
