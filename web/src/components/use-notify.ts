import { useSnackbar } from 'notistack';
import { useMemo } from 'react';
import { formatUserError } from '../lib/error-mapping';

/** Toasts with the spec's wording: success texts as given, errors as 'message: details'. */
export function useNotify() {
  const { enqueueSnackbar } = useSnackbar();
  return useMemo(
    () => ({
      success: (text: string) => enqueueSnackbar(text, { variant: 'success' }),
      error: (text: string) => enqueueSnackbar(text, { variant: 'error' }),
      apiError: (error: unknown) => enqueueSnackbar(formatUserError(error), { variant: 'error' }),
    }),
    [enqueueSnackbar],
  );
}
