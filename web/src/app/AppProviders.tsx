import type { ReactNode } from 'react';
import { CoreProviders } from './CoreProviders';
import { ScreenProviders } from './ScreenProviders';

export { SNACKBAR_SETTINGS } from './ScreenProviders';

/**
 * Every provider at once, for a screen rendered on its own (tests). The app itself mounts the
 * screens' providers below the sign-in screen (router.tsx), so its first load does without them.
 */
export function AppProviders({ children }: { children: ReactNode }) {
  return (
    <CoreProviders>
      <ScreenProviders>{children}</ScreenProviders>
    </CoreProviders>
  );
}
