import { lazy, useState } from 'react';
import { Outlet, useLocation } from 'react-router';
import { LazyPage } from '../components/LazyPage';

const ScreenProvidersOutlet = lazy(() => import('./ScreenProviders'));

/**
 * The screens' providers (query cache, toasts) from the first screen that needs them, and from then
 * on for every screen, the sign-in screen included: a reset link's page ends on the sign-in screen
 * with its toast, which must outlive the page. A first visit to the sign-in screen goes without
 * them (issue 36: its first load).
 */
export function ProvidersOnDemand() {
  const { pathname } = useLocation();
  const [needed, setNeeded] = useState(pathname !== '/');
  if (!needed && pathname !== '/') setNeeded(true);
  return needed ? <LazyPage page={ScreenProvidersOutlet} /> : <Outlet />;
}
