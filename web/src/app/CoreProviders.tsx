import CssBaseline from '@mui/material/CssBaseline';
import { ThemeProvider } from '@mui/material/styles';
import type { ReactNode } from 'react';
import { MODE_STORAGE_KEY, theme } from './theme';

/** What every screen needs, the sign-in screen too: the theme. The rest is in ScreenProviders. */
export function CoreProviders({ children }: { children: ReactNode }) {
  return (
    <ThemeProvider theme={theme} modeStorageKey={MODE_STORAGE_KEY} defaultMode="system">
      <CssBaseline enableColorScheme />
      {children}
    </ThemeProvider>
  );
}
