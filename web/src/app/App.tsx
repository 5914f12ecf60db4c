import { BrowserRouter, useLocation, useRoutes } from 'react-router';
import { CoreProviders } from './CoreProviders';
import { RouteErrorBoundary } from './RouteErrorBoundary';
import { appRoutes } from './router';

function Screens() {
  const { pathname } = useLocation();
  return <RouteErrorBoundary path={pathname}>{useRoutes(appRoutes)}</RouteErrorBoundary>;
}

/**
 * The declarative router (BrowserRouter with the route objects): the app loads no data through
 * routes, and the data router (createBrowserRouter) added 15 KiB of compressed JavaScript to the
 * sign-in screen's first load (issue 36). Tests render the same routes in a memory data router.
 */
export function App() {
  return (
    <CoreProviders>
      <BrowserRouter>
        <Screens />
      </BrowserRouter>
    </CoreProviders>
  );
}
