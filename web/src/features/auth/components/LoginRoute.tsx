import { lazy, Suspense } from 'react';
import { Navigate } from 'react-router';
import { CenteredSpinner } from '../../../components/CenteredSpinner';
import { useSession } from '../session-context';
import { LoginPage } from './LoginPage';

// Only a sign-in with a second factor shows it, so it is not part of the sign-in screen's first load.
const SecondStepPage = lazy(() => import('./SecondStepPage').then((m) => ({ default: m.SecondStepPage })));

export function LoginRoute() {
  const { user, secondStep } = useSession();
  if (user) return <Navigate to="/home" replace />;
  // Two-factor sign-in: the password was right, the second step (or a mandatory enrolment) is due.
  if (secondStep) {
    return (
      <Suspense fallback={<CenteredSpinner />}>
        <SecondStepPage pending={secondStep} />
      </Suspense>
    );
  }
  return <LoginPage />;
}
