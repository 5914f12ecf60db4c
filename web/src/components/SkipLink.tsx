import Link from '@mui/material/Link';

/**
 * 'Skip to main content': the first thing Tab reaches, out of sight until then, so a keyboard user
 * need not pass the top bar on every screen (WCAG 2.4.1).
 */
export function SkipLink({ target }: { target: string }) {
  return (
    <Link
      href={`#${target}`}
      onClick={(event) => {
        // The main region takes focus itself: following the hash alone would not move it in every browser.
        event.preventDefault();
        document.getElementById(target)?.focus();
      }}
      sx={{
        position: 'absolute',
        left: 8,
        top: 8,
        zIndex: (theme) => theme.zIndex.tooltip + 1,
        px: 2,
        py: 1,
        bgcolor: 'background.paper',
        borderRadius: 1,
        fontWeight: 600,
        transform: 'translateY(-200%)',
        '&:focus': { transform: 'none' },
      }}
    >
      Skip to main content
    </Link>
  );
}
