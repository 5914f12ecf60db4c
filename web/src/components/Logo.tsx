import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';

/** The product mark: an upload arrow inside a shield, drawn inline so no asset is fetched. */
export function Logo({ compact = false }: { compact?: boolean }) {
  return (
    <Box sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
      <Box component="svg" viewBox="0 0 32 32" sx={{ width: 32, height: 32, flexShrink: 0 }} aria-hidden="true">
        <path d="M16 2l12 5v8c0 7.5-5.1 13.4-12 15-6.9-1.6-12-7.5-12-15V7z" fill="#1565c0" />
        <path d="M16 9l-6 6h4v7h4v-7h4z" fill="#fff" />
      </Box>
      {!compact && (
        <Typography variant="h6" component="span" noWrap sx={{ fontWeight: 700, letterSpacing: 0.2, fontSize: { xs: '1rem', sm: '1.25rem' } }}>
          Secure Upload Portal
        </Typography>
      )}
    </Box>
  );
}
