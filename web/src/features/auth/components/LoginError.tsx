import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';

/** Why the sign-in failed; loaded with the first failure, not with the form (issue 36). */
export default function LoginError({ error, details }: { error: string; details: string | null }) {
  return (
    <Alert severity="error" sx={{ mb: 2 }}>
      {details ? <AlertTitle>{error}</AlertTitle> : error}
      {details}
    </Alert>
  );
}
