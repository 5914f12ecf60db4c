import { createTheme, type Theme } from '@mui/material/styles';

/** Spec §9 breakpoints (the MUI defaults, written out so a change is a decision, not an upgrade). */
export const BREAKPOINTS = { xs: 0, sm: 600, md: 900, lg: 1200, xl: 1536 } as const;

/** Spec §9: the colour mode lives under this localStorage key; default follows the system. */
export const MODE_STORAGE_KEY = 'mode';

/**
 * The keyboard focus ring (issue 36, WCAG 2.4.7 and 1.4.11): 3 px, in two tones so that it keeps
 * 3:1 against whatever is beside it. The outer tone is against the page (light: #1a1a1a on #f4f6fa
 * and white, 16:1 and 17:1; dark: white on #0e1420 and #151d2c, 18:1 and 17:1); the inner 2 px fill
 * the gap to the control with the opposite tone, against the control's own colour (white beside
 * #1565c0 5.8:1, #c62828 5.6:1; #0e1420 beside #64b5f6 8.3:1, #ff8a80 8.1:1). Shown on
 * :focus-visible only: a mouse click draws no ring.
 */
export const FOCUS_RING = {
  light: { ring: '#1a1a1a', inner: '#ffffff' },
  dark: { ring: '#ffffff', inner: '#0e1420' },
} as const;

/** The ring outside a control (buttons, icon buttons, checkboxes, sort headers, links). */
function ringOutside(theme: Theme) {
  const ring = (tones: { ring: string; inner: string }) => ({
    outline: `3px solid ${tones.ring}`,
    outlineOffset: 2,
    boxShadow: `0 0 0 2px ${tones.inner}`,
  });
  return { ...ring(FOCUS_RING.light), ...theme.applyStyles('dark', ring(FOCUS_RING.dark)) };
}

/** Inside the control, where a container would clip a ring outside it (tabs, menu items, list rows). */
function ringInside(theme: Theme) {
  const ring = (tones: { ring: string }) => ({ outline: `3px solid ${tones.ring}`, outlineOffset: -3 });
  return { ...ring(FOCUS_RING.light), ...theme.applyStyles('dark', ring(FOCUS_RING.dark)) };
}

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
    MuiCssBaseline: {
      styleOverrides: (theme: Theme) => ({
        'a:focus-visible': ringOutside(theme),
        // A heading focused after a move to its screen (app/use-heading-focus.ts) is a place, not a control.
        'h1[tabindex="-1"]:focus': { outline: 'none' },
      }),
    },
    MuiButtonBase: { styleOverrides: { root: ({ theme }) => ({ '&.Mui-focusVisible': ringOutside(theme) }) } },
    MuiTab: { styleOverrides: { root: ({ theme }) => ({ '&.Mui-focusVisible': ringInside(theme) }) } },
    MuiMenuItem: { styleOverrides: { root: ({ theme }) => ({ '&.Mui-focusVisible': ringInside(theme) }) } },
    MuiListItemButton: { styleOverrides: { root: ({ theme }) => ({ '&.Mui-focusVisible': ringInside(theme) }) } },
    MuiLink: { styleOverrides: { root: ({ theme }) => ({ '&.Mui-focusVisible, &:focus-visible': ringOutside(theme) }) } },
    // disableElevation sets a focused button's box-shadow to none: the ring's inner tone is set again here.
    MuiButton: { defaultProps: { disableElevation: true }, styleOverrides: { root: ({ theme }) => ({ textTransform: 'none', '&.Mui-focusVisible': ringOutside(theme) }) } },
    MuiPaper: { defaultProps: { elevation: 0 } },
    MuiToggleButton: { styleOverrides: { root: { textTransform: 'none' } } },
    MuiTableCell: { styleOverrides: { head: { fontWeight: 600 } } },
  },
});
