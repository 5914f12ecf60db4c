// What other features may use of auth: access checks, the request's session, password rules.
export { can, companyScope, type Action, type Actor } from './permissions.js';
export { sessionOf } from './request-auth.js';
export { assertStrongPassword, hashPassword } from './password.js';
