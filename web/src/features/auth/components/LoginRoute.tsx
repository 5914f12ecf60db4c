import { Navigate } from 'react-router';
import { useSession } from '../session-context';
import { LoginPage } from './LoginPage';
import { SecondStepPage } from './SecondStepPage';

export function LoginRoute() {
  const { user, secondStep } = useSession();
  if (user) return <Navigate to="/home" replace />;
  // Two-factor sign-in: the password was right, the second step (or a mandatory enrolment) is due.
  if (secondStep) return <SecondStepPage pending={secondStep} />;
  return <LoginPage />;
}
