import CssBaseline from '@mui/material/CssBaseline';
import { ThemeProvider } from '@mui/material/styles';
import { SnackbarProvider } from 'notistack';
import type { ReactNode } from 'react';
import { MODE_STORAGE_KEY, theme } from './theme';

/** Spec §9: at most 3 notifications, 5 s each, bottom left, 225 ms in and 195 ms out. */
export const SNACKBAR_SETTINGS = {
  maxSnack: 3,
  autoHideDuration: 5000,
  anchorOrigin: { vertical: 'bottom', horizontal: 'left' },
  transitionDuration: { enter: 225, exit: 195 },
} as const;

export function AppProviders({ children }: { children: ReactNode }) {
  return (
    <ThemeProvider theme={theme} modeStorageKey={MODE_STORAGE_KEY} defaultMode="system">
      <CssBaseline enableColorScheme />
      <SnackbarProvider {...SNACKBAR_SETTINGS}>{children}</SnackbarProvider>
    </ThemeProvider>
  );
}
