import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';

/** The login screen's side image (spec §2), drawn in SVG so the page needs no external asset. */
export function LoginIllustration() {
  return (
    <Box
      sx={{
        height: '100%',
        minHeight: 480,
        display: 'flex',
        flexDirection: 'column',
        alignItems: 'center',
        justifyContent: 'center',
        gap: 4,
        p: 6,
        color: '#fff',
        background: 'linear-gradient(135deg, #0d47a1 0%, #1565c0 45%, #00897b 100%)',
      }}
    >
      <Box component="svg" viewBox="0 0 320 240" sx={{ width: '100%', maxWidth: 420 }} role="img" aria-label="Encrypted upload of imaging studies">
        <defs>
          <linearGradient id="login-card" x1="0" x2="1" y1="0" y2="1">
            <stop offset="0" stopColor="#ffffff" stopOpacity="0.95" />
            <stop offset="1" stopColor="#e3f2fd" stopOpacity="0.9" />
          </linearGradient>
        </defs>
        <circle cx="250" cy="50" r="40" fill="#ffffff" opacity="0.08" />
        <circle cx="60" cy="185" r="45" fill="#ffffff" opacity="0.06" />
        <path d="M92 120a34 34 0 0 1 64-16 26 26 0 0 1 40 22 22 22 0 0 1-2 44H98a26 26 0 0 1-6-50z" fill="url(#login-card)" />
        <path d="M144 158v-38m0 0l-14 14m14-14l14 14" stroke="#1565c0" strokeWidth="7" strokeLinecap="round" strokeLinejoin="round" fill="none" />
        <g transform="translate(200 120)">
          <path d="M30 0l28 11v19c0 18-12 31-28 36C14 61 2 48 2 30V11z" fill="#00897b" stroke="#fff" strokeWidth="3" />
          <rect x="19" y="27" width="22" height="17" rx="3" fill="#fff" />
          <path d="M23 27v-5a7 7 0 0 1 14 0v5" stroke="#fff" strokeWidth="3" fill="none" />
        </g>
        <g transform="translate(24 40)" opacity="0.9">
          {[0, 1, 2].map((row) =>
            [0, 1, 2].map((col) => (
              <rect key={`${row}-${col}`} x={col * 22} y={row * 22} width="18" height="18" rx="3" fill="#fff" opacity={0.25 + ((row + col) % 3) * 0.2} />
            )),
          )}
        </g>
      </Box>
      <Box sx={{ textAlign: 'center', maxWidth: 360 }}>
        <Typography variant="h5" component="p" sx={{ fontWeight: 700 }}>
          Your imaging data, delivered safely
        </Typography>
        <Typography variant="body1" sx={{ opacity: 0.85, mt: 1 }}>
          Upload DICOM studies and archives to your projects over an encrypted connection.
        </Typography>
      </Box>
    </Box>
  );
}
