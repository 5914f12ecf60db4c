// What other features may use of auth: access checks, the request's session, password rules.
export { can, companyScope, type Action, type Actor } from './permissions.js';
export { sessionOf } from './request-auth.js';
export { reachesProject } from './project-limit.js';
export type { OtherBearer } from './other-bearer.js';
export type { AuthenticatedSession } from './auth.service.js';
export { assertStrongPassword, hashPassword } from './password.js';
// For signing in through a company's identity provider (sso/): the same sessions, tokens and counters.
export type { AuthService, PasswordLoginRefusal } from './auth.service.js';
export { hashToken, looksLikeToken, newToken } from './token.js';
export { addressGroup, retryAfterSeconds } from './login-throttle.policy.js';
export { LoginThrottleRepository } from './login-throttle.repository.js';
