import { createTheme } from '@mui/material/styles';

/** Spec §9 breakpoints (the MUI defaults, written out so a change is a decision, not an upgrade). */
export const BREAKPOINTS = { xs: 0, sm: 600, md: 900, lg: 1200, xl: 1536 } as const;

/** Spec §9: the colour mode lives under this localStorage key; default follows the system. */
export const MODE_STORAGE_KEY = 'mode';

export const theme = createTheme({
  cssVariables: { colorSchemeSelector: 'data-color-scheme' },
  colorSchemes: {
    light: {
      palette: {
        primary: { main: '#1565c0' },
        secondary: { main: '#00897b' },
        // Darker than MUI's defaults so chip and caption text keeps a 4.5:1 contrast (WCAG AA).
        success: { main: '#1b5e20' },
        info: { main: '#01579b' },
        warning: { main: '#8a4500' },
        error: { main: '#c62828' },
        background: { default: '#f4f6fa', paper: '#ffffff' },
      },
    },
    dark: {
      palette: {
        // A contained button's hover is `dark`, which MUI makes main darkened by 30 %: #467eac and
        // #b26059 keep only 4.4:1 and 4.3:1 with their dark text, under AA; these tones 5.0:1 and 5.9:1.
        primary: { main: '#64b5f6', dark: '#4d88ba' },
        secondary: { main: '#4db6ac' },
        // Light tones with dark text: readable both as filled chips and as text on dark paper.
        error: { main: '#ff8a80', dark: '#d9736b', contrastText: 'rgba(0, 0, 0, 0.87)' },
        success: { main: '#81c784', contrastText: 'rgba(0, 0, 0, 0.87)' },
        background: { default: '#0e1420', paper: '#151d2c' },
      },
    },
  },
  breakpoints: { values: BREAKPOINTS },
  shape: { borderRadius: 10 },
  typography: {
    fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
    h4: { fontWeight: 700 },
    h5: { fontWeight: 700 },
    h6: { fontWeight: 600 },
  },
  components: {
    MuiButton: { defaultProps: { disableElevation: true }, styleOverrides: { root: { textTransform: 'none' } } },
    MuiPaper: { defaultProps: { elevation: 0 } },
    MuiToggleButton: { styleOverrides: { root: { textTransform: 'none' } } },
    MuiTableCell: { styleOverrides: { head: { fontWeight: 600 } } },
  },
});
