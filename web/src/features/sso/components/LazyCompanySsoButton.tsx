import { lazy, Suspense, type ComponentProps } from 'react';
import type { CompanySsoButton as Button } from './CompanySsoButton';

const CompanySsoButton = lazy(() => import('./CompanySsoButton').then((m) => ({ default: m.CompanySsoButton })));

/**
 * The SysAdmin's button (with its tooltip and dialog), loaded with the screen that shows it: the
 * sign-in screen imports this feature's index for SsoSignIn, and whatever the index exports
 * directly comes with the first load (issue 36).
 */
export function LazyCompanySsoButton(props: ComponentProps<typeof Button>) {
  return (
    <Suspense fallback={null}>
      <CompanySsoButton {...props} />
    </Suspense>
  );
}
