// Two-factor sign-in with an authenticator app (issue 37 item 3).
export { Authenticators } from './authenticators.js';
export { SecondStepService } from './second-step.service.js';
export { TwoFactorService } from './two-factor.service.js';
export { TwoFactorRepository } from './two-factor.repository.js';
export { twoFactorRoutes } from './two-factor.routes.js';
