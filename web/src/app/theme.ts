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
        background: { default: '#f4f6fa', paper: '#ffffff' },
      },
    },
    dark: {
      palette: {
        primary: { main: '#64b5f6' },
        secondary: { main: '#4db6ac' },
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
