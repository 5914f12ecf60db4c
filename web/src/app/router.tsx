import { lazy } from 'react';
import { Navigate, type RouteObject } from 'react-router';
import { SessionProvider } from '../features/auth/components/SessionProvider';
import { LoginRoute } from '../features/auth/components/LoginRoute';
import { RequireAuth } from '../features/auth/components/RequireAuth';
import { AppLayout } from './AppLayout';
import { LazyPage } from '../components/LazyPage';
import { RouteError } from '../components/RouteError';

// Screens behind the login are split out so the first visit downloads only the login screen.
const ProjectsPage = lazy(() => import('../features/projects/components/ProjectsPage'));
const ProjectDetailPage = lazy(() => import('../features/project/components/ProjectDetailPage'));

export const appRoutes: RouteObject[] = [
  {
    element: <SessionProvider />,
    errorElement: <RouteError />,
    children: [
      { path: '/', element: <LoginRoute /> },
      {
        element: <RequireAuth />,
        children: [
          {
            element: <AppLayout />,
            children: [
              { path: '/home', element: <LazyPage page={ProjectsPage} /> },
              { path: '/study/:id', element: <LazyPage page={ProjectDetailPage} /> },
            ],
          },
        ],
      },
      { path: '*', element: <Navigate to="/" replace /> },
    ],
  },
];
