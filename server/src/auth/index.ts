// What other features may use of auth: access checks, the request's session, password rules.
export { can, companyScope, type Action, type Actor } from './permissions.js';
export { sessionOf } from './request-auth.js';
export { reachesProject } from './project-limit.js';
export type { OtherBearer } from './other-bearer.js';
export { assertStrongPassword, PasswordHasher, PRODUCTION_PASSWORD_COST, verifyPassword, type PasswordCost } from './password.js';
// For signing in through a company's identity provider (sso/): the same sessions, tokens and counters.
export type { AuthService, PasswordLoginRefusal } from './auth.service.js';
// For two-factor sign-in (two-factor/): the second step shares the password's throttle counters.
export type { AuthenticatedSession, SecondFactorGate } from './auth.service.js';
export type { LoginThrottle, PasswordAttempt } from './login-throttle.js';
export { hashToken, looksLikeToken, newToken } from './token.js';
export { addressGroup, retryAfterSeconds } from './login-throttle.policy.js';
export { LoginThrottleRepository } from './login-throttle.repository.js';
