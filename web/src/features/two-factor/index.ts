// What other features use of two-factor sign-in: the set-up steps (the mandatory enrolment at
// sign-in shows them too), and the administrators' reset and company setting. The account dialog
// is loaded by the app frame on demand (components/TwoFactorDialog).
export { AuthenticatorSetup } from './components/AuthenticatorSetup';
export { RecoveryCodes } from './components/RecoveryCodes';
export { serverWords } from './two-factor-words';
export { useCompanyTwoFactor, useResetTwoFactor, useSetCompanyTwoFactor } from './api/two-factor-api';
