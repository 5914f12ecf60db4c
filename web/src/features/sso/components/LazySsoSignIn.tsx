import { lazy, Suspense, type ComponentProps } from 'react';
import type { SsoSignIn as Part } from './SsoSignIn';

const SsoSignIn = lazy(() => import('./SsoSignIn').then((m) => ({ default: m.SsoSignIn })));

/**
 * The login screen's single sign-on part, fetched as the screen shows: it adds to the form only
 * once a username is typed or a provider sent the browser back, so the form is usable without it
 * (issue 36: the first load's JavaScript).
 */
export function LazySsoSignIn(props: ComponentProps<typeof Part>) {
  return (
    <Suspense fallback={null}>
      <SsoSignIn {...props} />
    </Suspense>
  );
}
