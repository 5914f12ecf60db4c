import { lazy } from 'react';
import { Navigate, type RouteObject } from 'react-router';
import { SessionProvider } from '../features/auth/components/SessionProvider';
import { LoginRoute } from '../features/auth/components/LoginRoute';
import { RequireAdmin } from '../features/auth/components/RequireAdmin';
import { RequireAuth } from '../features/auth/components/RequireAuth';
import { LazyPage } from '../components/LazyPage';
import { ProvidersOnDemand } from './ProvidersOnDemand';

// Screens behind the login are split out so the first visit downloads only the login screen; so are
// the signed-in frame (top bar, avatar menu) and the screens' providers (query cache, toasts), which
// no part of the sign-in screen uses (issue 36).
const loadAppLayout = () => import('./AppLayout').then((m) => ({ default: m.AppLayout }));
const AppLayout = lazy(loadAppLayout);
const loadProjectsPage = () => import('../features/projects/components/ProjectsPage');
const ProjectsPage = lazy(loadProjectsPage);

/** What a sign-in opens: the frame, its providers and the projects (the screen after the sign-in). */
function preloadSignedInScreens(): void {
  void Promise.all([import('./ScreenProviders'), loadAppLayout(), loadProjectsPage()]).catch(() => undefined);
}
const ProjectDetailPage = lazy(() => import('../features/project/components/ProjectDetailPage'));
const AdminPage = lazy(() => import('../features/admin/components/AdminPage'));
const SetPasswordPage = lazy(() => import('../features/auth/components/SetPasswordPage'));
const ReviewInboxPage = lazy(() => import('../features/review/components/ReviewInboxPage'));

export const appRoutes: RouteObject[] = [
  {
    element: <SessionProvider onSigningIn={preloadSignedInScreens} />,
    children: [
      {
        element: <ProvidersOnDemand />,
        children: [
          { path: '/', element: <LoginRoute /> },
          // A reset link's page (issue 15): no session needed, whoever is signed in here.
          { path: '/set-password', element: <LazyPage page={SetPasswordPage} /> },
          {
            element: <RequireAuth />,
            children: [
              {
                element: <LazyPage page={AppLayout} />,
                children: [
                  { path: '/home', element: <LazyPage page={ProjectsPage} /> },
                  { path: '/study/:id', element: <LazyPage page={ProjectDetailPage} /> },
                  // The reviewers' inbox (issue 35); the page says Access Denied to other roles.
                  { path: '/review', element: <LazyPage page={ReviewInboxPage} /> },
                  // Administration (issue 15), beside the spec's three routes: /admin/<section>.
                  {
                    element: <RequireAdmin />,
                    children: [
                      { path: '/admin', element: <LazyPage page={AdminPage} /> },
                      { path: '/admin/:section', element: <LazyPage page={AdminPage} /> },
                    ],
                  },
                ],
              },
            ],
          },
          { path: '*', element: <Navigate to="/" replace /> },
        ],
      },
    ],
  },
];
