import { lazy, Suspense, useDeferredValue, type ComponentProps } from 'react';
import type { SsoSignIn as Part } from './SsoSignIn';

const SsoSignIn = lazy(() => import('./SsoSignIn').then((m) => ({ default: m.SsoSignIn })));

/**
 * The login screen's single sign-on part, fetched once the form is on the screen: it adds to the
 * form only once a username is typed or a provider sent the browser back, so the form is usable
 * without it (issue 36: the first load's JavaScript). Rendered during the first render, its code
 * was requested while React was still building the form and arrived before the form was usable;
 * the deferred value is false in that render and true in the one React does right after it.
 */
export function LazySsoSignIn(props: ComponentProps<typeof Part>) {
  const formShown = useDeferredValue(true, false);
  return formShown ? (
    <Suspense fallback={null}>
      <SsoSignIn {...props} />
    </Suspense>
  ) : null;
}
