import { styled } from '@mui/material/styles';
import { MaterialDesignContent, SnackbarProvider } from 'notistack';
import { QueryClientProvider } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { Outlet } from 'react-router';
import { createQueryClient } from '../lib/query-client';

/** Spec §9: at most 3 notifications, 5 s each, bottom left, 225 ms in and 195 ms out. */
export const SNACKBAR_SETTINGS = {
  maxSnack: 3,
  autoHideDuration: 5000,
  anchorOrigin: { vertical: 'bottom', horizontal: 'left' },
  transitionDuration: { enter: 225, exit: 195 },
} as const;

// notistack's own colours ignore the theme and fail contrast (white on #43a047 is 3.3:1).
const ThemedToast = styled(MaterialDesignContent)(({ theme }) => ({
  '&.notistack-MuiContent-success': {
    backgroundColor: theme.vars?.palette.success.dark ?? theme.palette.success.dark,
    color: theme.vars?.palette.success.contrastText ?? theme.palette.success.contrastText,
  },
  '&.notistack-MuiContent-error': {
    backgroundColor: theme.vars?.palette.error.dark ?? theme.palette.error.dark,
    color: theme.vars?.palette.error.contrastText ?? theme.palette.error.contrastText,
  },
}));
const TOAST_COMPONENTS = { success: ThemedToast, error: ThemedToast, default: ThemedToast, info: ThemedToast, warning: ThemedToast };

/** The query cache and the toasts (notistack) for the screens below. */
export function ScreenProviders({ children }: { children: ReactNode }) {
  // Created once per mount, so each test render starts with an empty cache.
  const [queryClient] = useState(createQueryClient);
  return (
    <QueryClientProvider client={queryClient}>
      <SnackbarProvider {...SNACKBAR_SETTINGS} Components={TOAST_COMPONENTS}>
        {children}
      </SnackbarProvider>
    </QueryClientProvider>
  );
}

/** The providers as a route's frame (ProvidersOnDemand mounts it once a screen needs them). */
export default function ScreenProvidersOutlet() {
  return (
    <ScreenProviders>
      <Outlet />
    </ScreenProviders>
  );
}
